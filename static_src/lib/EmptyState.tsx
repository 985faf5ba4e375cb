/**
 * One empty state for lists with nothing to show yet, the islands' twin of
 * templates/partials/empty_state.html (same classes, _empty-state.scss): a decorative icon
 * (aria-hidden), a title, one line of explanation and the calls to action. The icon is the
 * caller's (the path of a 16×16 icon), so a page carries only its own.
 */
import type { ReactNode } from "react";

export interface EmptyStateProps {
  /** The icon: an SVG path in a 16×16 box (Bootstrap Icons). */
  icon: string;
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
          <path d={icon} />
        </svg>
      </span>
      <p className="empty-state-title">{title}</p>
      <p className="empty-state-text">{text}</p>
      {children && <div className="empty-state-actions">{children}</div>}
    </div>
  );
}
