import { afterEach, describe, expect, it } from "vitest";

import { installPhotoViewer } from "../photoViewer";

function page(count: number): HTMLAnchorElement[] {
  document.body.innerHTML = `
    <div>${Array.from(
      { length: count },
      (_, i) => `<a href="/media/p${i}.jpg" data-photo-viewer-item data-width="800" data-height="600"><img alt="Anna, photo ${i + 1}"></a>`,
    ).join("")}</div>
    <button id="elsewhere">x</button>
    <dialog data-photo-viewer data-count-text="Photo {n} of {count}">
      <span data-photo-viewer-status></span>
      <button data-photo-viewer-close>Close</button>
      <button data-photo-viewer-step="-1">Previous</button>
      <img data-photo-viewer-image alt="">
      <button data-photo-viewer-step="1">Next</button>
    </dialog>`;
  installPhotoViewer(document);
  return [...document.querySelectorAll<HTMLAnchorElement>("a[data-photo-viewer-item]")];
}

const dialog = () => document.querySelector("dialog")!;
const image = () => document.querySelector<HTMLImageElement>("[data-photo-viewer-image]")!;
const status = () => document.querySelector("[data-photo-viewer-status]")!.textContent;
const key = (name: string) => dialog().dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true }));

afterEach(() => {
  document.body.innerHTML = "";
});

describe("photo viewer", () => {
  it("opens the clicked photo in the dialog with focus on close, sized, numbered", () => {
    const links = page(3);
    links[1]!.focus();
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    links[1]!.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(dialog().open).toBe(true);
    expect(image().getAttribute("src")).toBe("/media/p1.jpg");
    expect(image().alt).toBe("Anna, photo 2");
    expect([image().width, image().height]).toEqual([800, 600]);
    expect(status()).toBe("Photo 2 of 3");
    expect(document.activeElement).toBe(document.querySelector("[data-photo-viewer-close]"));
  });

  it("moves with the arrow keys and the buttons, round, and gives focus back on close", () => {
    const links = page(3);
    links[2]!.click();
    key("ArrowRight");
    expect(image().getAttribute("src")).toBe("/media/p0.jpg");
    expect(status()).toBe("Photo 1 of 3");
    key("ArrowLeft");
    key("ArrowLeft");
    expect(image().getAttribute("src")).toBe("/media/p1.jpg");
    document.querySelector<HTMLButtonElement>('[data-photo-viewer-step="1"]')!.click();
    expect(status()).toBe("Photo 3 of 3");
    const buttons = [...dialog().querySelectorAll("button")];
    buttons.at(-1)!.focus();
    key("Tab");
    expect(document.activeElement).toBe(buttons[0]);
    dialog().dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", shiftKey: true, bubbles: true, cancelable: true }));
    expect(document.activeElement).toBe(buttons.at(-1));
    dialog().close(); // what Escape does
    expect(document.activeElement).toBe(links[2]);
    expect(image().hasAttribute("src")).toBe(false);
  });

  it("has no previous/next for one photo, and a click with a modifier opens the photo itself", () => {
    const [only] = page(1);
    const withCtrl = new MouseEvent("click", { bubbles: true, cancelable: true, ctrlKey: true });
    only!.dispatchEvent(withCtrl);
    expect(withCtrl.defaultPrevented).toBe(false);
    expect(dialog().open).toBe(false);
    only!.click();
    for (const step of document.querySelectorAll<HTMLButtonElement>("[data-photo-viewer-step]")) {
      expect(step.hidden).toBe(true);
    }
  });
});
