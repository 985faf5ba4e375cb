import { describe, expect, it } from "vitest";

import { badgeLabel, renderBadges } from "../badges";

describe("badgeLabel", () => {
  it("is empty at zero, the number up to 99, then 99+", () => {
    expect(badgeLabel(0)).toBe("");
    expect(badgeLabel(-3)).toBe("");
    expect(badgeLabel(1)).toBe("1");
    expect(badgeLabel(99)).toBe("99");
    expect(badgeLabel(100)).toBe("99+");
    expect(badgeLabel(12345)).toBe("99+");
  });
});

describe("renderBadges", () => {
  it("updates the messages and likes badges and hides empty ones", () => {
    document.body.innerHTML = `
      <span class="unread-badge" data-badge="messages" hidden></span>
      <span class="unread-badge" data-badge="likes">4</span>
      <span class="badge" data-badge="credits">3</span>`;
    renderBadges({ unreadMessages: 150, newLikes: 0 });
    const badge = (name: string) => document.querySelector<HTMLElement>(`[data-badge="${name}"]`)!;
    expect(badge("messages").textContent).toBe("99+");
    expect(badge("messages").hidden).toBe(false);
    expect(badge("likes").textContent).toBe("");
    expect(badge("likes").hidden).toBe(true);
    expect(badge("credits").textContent).toBe("3");
  });
});
