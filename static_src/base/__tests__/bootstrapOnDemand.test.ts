import { afterEach, describe, expect, it, vi } from "vitest";

import { bootstrapReady, installBootstrapOnDemand, loadBootstrap, triggerOf } from "../bootstrapOnDemand";

installBootstrapOnDemand(document);

afterEach(() => {
  document.body.innerHTML = "";
});

describe("triggerOf", () => {
  it("maps data-bs-toggle and data-bs-dismiss to the component that serves them", () => {
    document.body.innerHTML = `
      <button id="d" data-bs-toggle="dropdown"><span id="inner">Menu</span></button>
      <a id="p" data-bs-toggle="pill" href="#x">Pill</a>
      <button id="a" data-bs-dismiss="alert">x</button>
      <button id="o" data-bs-toggle="something-else">?</button>
      <p id="plain">text</p>`;
    expect(triggerOf(document.getElementById("inner"))?.name).toBe("dropdown");
    expect(triggerOf(document.getElementById("inner"))?.element.id).toBe("d");
    expect(triggerOf(document.getElementById("p"))?.name).toBe("tab");
    expect(triggerOf(document.getElementById("a"))?.name).toBe("alert");
    expect(triggerOf(document.getElementById("o"))).toBeNull();
    expect(triggerOf(document.getElementById("plain"))).toBeNull();
    expect(triggerOf(null)).toBeNull();
  });
});

describe("installBootstrapOnDemand", () => {
  it("loads the collapse on the first click and plays the click again", async () => {
    document.body.innerHTML = `
      <button id="toggler" type="button" data-bs-toggle="collapse" data-bs-target="#menu" aria-expanded="false">Menu</button>
      <div id="menu" class="collapse">links</div>`;
    expect(bootstrapReady("collapse")).toBe(false);
    const seen = vi.fn();
    document.addEventListener("click", seen);
    document.getElementById("toggler")!.click();
    // Held back until the component is there; then played again once.
    await vi.waitFor(() => expect(bootstrapReady("collapse")).toBe(true));
    await vi.waitFor(() => expect(document.getElementById("toggler")!.getAttribute("aria-expanded")).toBe("true"));
    expect(seen).toHaveBeenCalledTimes(1);
    document.removeEventListener("click", seen);
  });

  it("lets Bootstrap's own handlers serve a loaded component at once", async () => {
    await loadBootstrap("alert");
    document.body.innerHTML = `<div class="alert" id="box"><button id="close" data-bs-dismiss="alert">x</button></div>`;
    document.getElementById("close")!.click();
    expect(document.getElementById("box")).toBeNull(); // no .fade: removed synchronously
  });

  it("starts loading when the pointer reaches a trigger", async () => {
    document.body.innerHTML = `<button id="b" data-bs-toggle="button">On</button>`;
    expect(bootstrapReady("button")).toBe(false);
    document.getElementById("b")!.dispatchEvent(new Event("pointerover", { bubbles: true }));
    await vi.waitFor(() => expect(bootstrapReady("button")).toBe(true));
    expect(document.getElementById("b")!.classList.contains("active")).toBe(false); // no click, no toggle
  });
});
