import { act } from "@testing-library/react";
import type { Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";

import { MOUNTED_ATTRIBUTE, mountIsland } from "../mount";

interface GreetingProps {
  strings: { hello: string };
  name: string;
  count: number;
}

function Greeting({ strings, name, count }: GreetingProps) {
  return (
    <p data-testid="greeting">
      {strings.hello} {name} ({count})
    </p>
  );
}

/** What Django's json_script produces: JSON with <, > and & escaped. */
function jsonScript(value: unknown, id: string): string {
  const json = JSON.stringify(value).replace(/</g, "\\u003C").replace(/>/g, "\\u003E").replace(/&/g, "\\u0026");
  return `<script type="application/json" id="${id}">${json}</script>`;
}

function island(name: string, id: string, props: unknown): string {
  return `<div data-island="${name}" id="${id}"></div>` + jsonScript(props, `${id}-props`);
}

let roots: Root[] = [];

function mount<P extends object>(name: string, Component: React.ComponentType<P>): Root[] {
  let mounted: Root[] = [];
  act(() => {
    mounted = mountIsland(name, Component);
  });
  roots.push(...mounted);
  return mounted;
}

afterEach(() => {
  act(() => roots.forEach((r) => r.unmount()));
  roots = [];
  document.body.innerHTML = "";
});

describe("mountIsland", () => {
  it("renders the component with the props from the JSON script", () => {
    document.body.innerHTML = island("Greeting", "island-Greeting-1", {
      strings: { hello: "Bonjour" },
      name: "Anna",
      count: 3,
    });
    const mounted = mount("Greeting", Greeting);
    expect(mounted).toHaveLength(1);
    const el = document.getElementById("island-Greeting-1")!;
    expect(el.textContent).toBe("Bonjour Anna (3)");
    expect(el.hasAttribute(MOUNTED_ATTRIBUTE)).toBe(true);
  });

  it("mounts every instance with its own props, and only islands of that name", () => {
    document.body.innerHTML =
      island("Greeting", "island-Greeting-1", { strings: { hello: "Hi" }, name: "A", count: 1 }) +
      island("Other", "island-Other-1", { strings: {} }) +
      island("Greeting", "island-Greeting-2", { strings: { hello: "Hej" }, name: "B", count: 2 });
    expect(mount("Greeting", Greeting)).toHaveLength(2);
    expect(document.getElementById("island-Greeting-1")!.textContent).toBe("Hi A (1)");
    expect(document.getElementById("island-Greeting-2")!.textContent).toBe("Hej B (2)");
    expect(document.getElementById("island-Other-1")!.textContent).toBe("");
    expect(document.getElementById("island-Other-1")!.hasAttribute(MOUNTED_ATTRIBUTE)).toBe(false);
  });

  it("does not mount an element twice", () => {
    document.body.innerHTML = island("Greeting", "island-Greeting-1", { strings: { hello: "Hi" }, name: "A", count: 1 });
    expect(mount("Greeting", Greeting)).toHaveLength(1);
    expect(mount("Greeting", Greeting)).toHaveLength(0);
    expect(document.querySelectorAll('[data-testid="greeting"]')).toHaveLength(1);
  });

  it("renders text, not HTML, from the props", () => {
    document.body.innerHTML = island("Greeting", "island-Greeting-1", {
      strings: { hello: "<img src=x onerror=alert(1)>" },
      name: "</script><b>x</b>",
      count: 0,
    });
    mount("Greeting", Greeting);
    const el = document.getElementById("island-Greeting-1")!;
    expect(el.querySelector("img, b")).toBeNull();
    expect(el.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("skips (and reports) an island without a props script or with invalid JSON", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    document.body.innerHTML =
      '<div data-island="Greeting" id="island-Greeting-1"></div>' +
      '<div data-island="Greeting" id="island-Greeting-2"></div>' +
      '<script type="application/json" id="island-Greeting-2-props">{not json</script>';
    expect(mount("Greeting", Greeting)).toHaveLength(0);
    expect(error).toHaveBeenCalledTimes(2);
    expect(document.body.querySelector(`[${MOUNTED_ATTRIBUTE}]`)).toBeNull();
  });
});
