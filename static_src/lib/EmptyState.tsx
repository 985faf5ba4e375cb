/**
 * One empty state for lists with nothing to show yet, the islands' twin of
 * templates/partials/empty_state.html (same classes, _empty-state.scss): a decorative icon
 * (aria-hidden), a title, one line of explanation and the calls to action.
 */
import type { ReactNode } from "react";

export type EmptyIcon = "search" | "chat";

const PATHS: Record<EmptyIcon, string> = {
  search:
    "M11.742 10.344a6.5 6.5 0 1 0-1.397 1.398h-.001q.044.06.098.115l3.85 3.85a1 1 0 0 0 1.415-1.414l-3.85-3.85a1 1 0 0 0-.115-.1zM12 6.5a5.5 5.5 0 1 1-11 0 5.5 5.5 0 0 1 11 0",
  chat: "M2.678 11.894a1 1 0 0 1 .287.801 11 11 0 0 1-.398 2c1.395-.323 2.247-.697 2.634-.893a1 1 0 0 1 .71-.074A8 8 0 0 0 8 14c3.996 0 7-2.807 7-6s-3.004-6-7-6-7 2.808-7 6c0 1.468.617 2.83 1.678 3.894m-.493 3.905a22 22 0 0 1-.713.129c-.2.032-.352-.176-.273-.362a10 10 0 0 0 .244-.637l.003-.01c.248-.72.45-1.548.524-2.319C.743 11.37 0 9.76 0 8c0-3.866 3.582-7 8-7s8 3.134 8 7-3.582 7-8 7a9 9 0 0 1-2.347-.306c-.52.263-1.639.742-3.468 1.105",
};

export interface EmptyStateProps {
  icon: EmptyIcon;
  title: string;
  text: string;
  testId?: string;
  /** Buttons or links (class "btn …"), in a centred row. */
  children?: ReactNode;
}

export function EmptyState({ icon, title, text, testId, children }: EmptyStateProps) {
  return (
    <div className="empty-state" data-testid={testId}>
      <span className="empty-state-icon" aria-hidden="true">
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="26" height="26" fill="currentColor" focusable="false">
          <path d={PATHS[icon]} />
        </svg>
      </span>
      <p className="empty-state-title">{title}</p>
      <p className="empty-state-text">{text}</p>
      {children && <div className="empty-state-actions">{children}</div>}
    </div>
  );
}
