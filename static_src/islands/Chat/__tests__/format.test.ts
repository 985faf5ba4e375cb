import { describe, expect, it } from "vitest";

import { applyMarks, fill, markState, mergeMessages, messageTime, replaceHistory, tickState, withId } from "../format";
import type { ShownMessage } from "../types";
import { message } from "./fixtures";

function local(clientId: string, extra: Partial<ShownMessage> = {}): ShownMessage {
  return { ...message(0, { client_id: clientId, text: `local ${clientId}` }), local: "sending", ...extra };
}

const ids = (list: ShownMessage[]) => list.map((m) => (m.local ? `${m.local}:${m.client_id}` : m.id));

describe("fill", () => {
  it("replaces every known placeholder, numbers included, and leaves unknown ones", () => {
    expect(fill("{name} is typing…", { name: "Anna" })).toBe("Anna is typing…");
    expect(fill("{count} of {max} characters", { count: 12, max: 1000 })).toBe("12 of 1000 characters");
    expect(fill("{a}{a} {b}", { a: "x" })).toBe("xx {b}");
    expect(fill("{count} unread", { count: 0 })).toBe("0 unread");
    expect(fill("no placeholders", { name: "Anna" })).toBe("no placeholders");
  });

  it("inserts the values as they are (no second pass over them)", () => {
    expect(fill("Hi {name}!", { name: "{count} <b>" , count: 3 })).toBe("Hi {count} <b>!");
  });
});

describe("withId", () => {
  it("puts the id in place of {id}", () => {
    expect(withId("/chats/{id}", 17)).toBe("/chats/17");
    expect(withId("/members/{id}/chat", 3)).toBe("/members/3/chat");
    expect(withId("/chats", 3)).toBe("/chats");
  });
});

describe("messageTime", () => {
  it("shows the time today and the date with the time on another day", () => {
    const now = new Date(2025, 2, 12, 20, 0);
    expect(messageTime(new Date(2025, 2, 12, 14, 5).toISOString(), "en-GB", now)).toBe("14:05");
    expect(messageTime(new Date(2025, 2, 11, 9, 7).toISOString(), "en-GB", now)).toBe("11 Mar 09:07");
  });

  it("follows the member's locale (language and country), not the language alone", () => {
    const now = new Date(2025, 2, 12, 20, 0);
    const earlier = new Date(2025, 2, 11, 21, 7).toISOString();
    expect(messageTime(earlier, "en-GB", now)).toBe("11 Mar 21:07");
    expect(messageTime(earlier, "en-US", now)).toBe("Mar 11 09:07 PM");
  });

  it("is empty without a valid time", () => {
    expect(messageTime(null, "en-GB")).toBe("");
    expect(messageTime("not a date", "en-GB")).toBe("");
  });
});

describe("mergeMessages", () => {
  it("orders the server's messages by id and keeps ours on their way at the end", () => {
    const merged = mergeMessages([local("a")], [message(3), message(1), message(2)]);
    expect(ids(merged)).toEqual([1, 2, 3, "sending:a"]);
  });

  it("replaces the local message with the server's one of the same client_id", () => {
    const current = [message(1), local("a"), local("b", { local: "queued" })];
    const merged = mergeMessages(current, [message(9, { client_id: "a", text: "local a" })]);
    expect(ids(merged)).toEqual([1, 9, "queued:b"]);
    expect(merged[1]!.local).toBeUndefined();
    expect(merged.filter((m) => m.client_id === "a")).toHaveLength(1);
  });

  it("drops a local message whose server copy is already in the list", () => {
    const current = [message(4, { client_id: "a" }), local("a")];
    expect(ids(mergeMessages(current, []))).toEqual([4]);
  });

  it("updates a message it already has instead of adding it twice", () => {
    const merged = mergeMessages([message(1), message(2)], [message(2, { text: "changed" })]);
    expect(ids(merged)).toEqual([1, 2]);
    expect(merged[1]!.text).toBe("changed");
  });

  it("never takes delivered_at or read_at back to null", () => {
    const current = [message(5, { delivered_at: "2025-03-12T11:01:00Z", read_at: "2025-03-12T11:02:00Z" })];
    const merged = mergeMessages(current, [message(5, { delivered_at: null, read_at: null, text: "later answer" })]);
    expect(merged[0]!.delivered_at).toBe("2025-03-12T11:01:00Z");
    expect(merged[0]!.read_at).toBe("2025-03-12T11:02:00Z");
    expect(merged[0]!.text).toBe("later answer");

    // A later time from the server still moves it forward.
    const forward = mergeMessages(merged, [message(5, { delivered_at: "2025-03-12T11:01:00Z", read_at: "2025-03-12T11:09:00Z" })]);
    expect(forward[0]!.read_at).toBe("2025-03-12T11:09:00Z");
  });

  it("does not change the arrays it is given", () => {
    const current = [message(2), local("a")];
    const incoming = [message(1), message(3, { client_id: "a" })];
    const before = JSON.stringify([current, incoming]);
    mergeMessages(current, incoming);
    expect(JSON.stringify([current, incoming])).toBe(before);
  });
});

describe("replaceHistory", () => {
  it("takes the server's history (deleted ones drop out) and keeps ours on their way", () => {
    const current = [message(1), message(2), local("a"), local("b")];
    const next = replaceHistory(current, [message(2), message(3, { client_id: "b" })]);
    expect(ids(next)).toEqual([2, 3, "sending:a"]);
  });
});

describe("markState", () => {
  const list = (): ShownMessage[] => [
    message(1, { mine: false }),
    message(2),
    message(3, { delivered_at: "earlier" }),
    message(4),
    local("a"),
  ];

  it("marks our messages up to up_to as delivered, and nothing else", () => {
    const next = markState(list(), "delivered", 3, "now");
    expect(next.map((m) => m.delivered_at)).toEqual([null, "now", "earlier", null, null]);
    expect(next.map((m) => m.read_at)).toEqual([null, null, null, null, null]);
  });

  it("marks read (and delivered when it was not) up to up_to; null means all", () => {
    const read = markState(list(), "read", 2, "now");
    expect(read[1]).toMatchObject({ delivered_at: "now", read_at: "now" });
    expect(read[2]!.read_at).toBeNull();

    const all = markState(list(), "read", null, "now");
    expect(all.map((m) => m.read_at)).toEqual([null, "now", "now", "now", null]);
    expect(all[2]!.delivered_at).toBe("earlier"); // the earlier delivery time stays
    expect(all[0]!.read_at).toBeNull(); // theirs
    expect(all[4]!.read_at).toBeNull(); // local, not stored yet
  });

  it("returns the same array when nothing changes", () => {
    const current = list();
    expect(markState(current, "delivered", 0, "now")).toBe(current);
    const once = markState(current, "delivered", null, "now");
    expect(markState(once, "delivered", null, "later")).toBe(once);
  });
});

describe("applyMarks", () => {
  it("applies the delivered and read marks heard so far", () => {
    const current = [message(1), message(2), message(3), message(4, { mine: false })];
    const next = applyMarks(current, { delivered: { upTo: 2, at: "d" }, read: { upTo: 1, at: "r" } });
    expect(next.map(tickState)).toEqual(["read", "delivered", "sent", "sent"]);
    expect(next[0]).toMatchObject({ delivered_at: "d", read_at: "r" });
  });

  it("changes nothing without marks", () => {
    const current = [message(1)];
    expect(applyMarks(current, { delivered: null, read: null })).toBe(current);
  });
});

describe("tickState", () => {
  it("is the local state, then read, delivered or sent", () => {
    expect(tickState(local("a"))).toBe("sending");
    expect(tickState(local("a", { local: "queued" }))).toBe("queued");
    expect(tickState(message(1))).toBe("sent");
    expect(tickState(message(1, { delivered_at: "x" }))).toBe("delivered");
    expect(tickState(message(1, { delivered_at: "x", read_at: "y" }))).toBe("read");
    expect(tickState(message(1, { read_at: "y" }))).toBe("read");
  });
});
