/**
 * An icon of the chat's sprite, static/chat/icons.svg (props urls.icons, on the site's own
 * host: a use element never loads another origin's file). The icons are an image the browser
 * caches, not code in the page's scripts (docs/frontend.md, "Icons"). Always decorative
 * (aria-hidden): the button or label around it carries the name.
 */
export type IconName =
  | "clock"
  | "check"
  | "checks"
  | "flag-fill"
  | "flag"
  | "back"
  | "coins"
  | "lightbulb"
  | "photo"
  | "gift"
  | "send"
  | "trash";

interface IconProps {
  /** The sprite's address (urls.icons). */
  sprite: string;
  name: IconName;
  size: number;
  height?: number;
  className?: string;
}

export function Icon({ sprite, name, size, height = size, className }: IconProps) {
  return (
    <svg width={size} height={height} fill="currentColor" aria-hidden="true" focusable="false" className={className} data-icon={name}>
      <use href={`${sprite}#${name}`} />
    </svg>
  );
}
