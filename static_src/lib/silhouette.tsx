/**
 * The placeholder of a profile without a photo, shared by the profile cards (lib/profileCard.tsx)
 * and the chat's avatars; a module of its own so the chat does not carry the cards' code.
 */
const SILHOUETTE =
  "M12 13.5a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9Zm0 2c-4.7 0-8.5 2.4-8.5 5.5V24h17v-3c0-3.1-3.8-5.5-8.5-5.5Z";

/** The placeholder of a profile without a photo: square, sized by width/height so the
 * page does not shift. Labelled when `label` is given, else hidden from screen readers. */
export function Silhouette({
  size,
  className = "",
  label,
  testId,
}: {
  size: number;
  className?: string;
  label?: string;
  testId?: string;
}) {
  const a11y = label ? { role: "img", "aria-label": label } : { "aria-hidden": true as const };
  return (
    <svg
      className={`profile-silhouette ${className}`.trim()}
      viewBox="0 0 24 24"
      width={size}
      height={size}
      focusable="false"
      data-testid={testId ?? "profile-silhouette"}
      {...a11y}
    >
      <path fill="currentColor" d={SILHOUETTE} />
    </svg>
  );
}
