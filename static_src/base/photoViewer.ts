/**
 * The profile page's photo viewer (templates/profiles/profile_view.html): a click on a
 * photo `a[data-photo-viewer-item]` opens `dialog[data-photo-viewer]` (a native modal
 * dialog: the page behind is inert, Escape closes it) with the full photo. The left and
 * right arrow keys (and the previous / next buttons) move between the photos, round; the
 * photo's number is announced; Tab stays among its buttons; on close focus goes back to
 * the photo that opened it.
 * Without script, or with a modifier key, the link opens the photo itself.
 */
export function installPhotoViewer(doc: Document = document): void {
  const dialog = doc.querySelector<HTMLDialogElement>("dialog[data-photo-viewer]");
  const links = [...doc.querySelectorAll<HTMLAnchorElement>("a[data-photo-viewer-item]")];
  if (!dialog || typeof dialog.showModal !== "function" || links.length === 0) return;
  const image = dialog.querySelector<HTMLImageElement>("[data-photo-viewer-image]");
  const status = dialog.querySelector<HTMLElement>("[data-photo-viewer-status]");
  const close = dialog.querySelector<HTMLButtonElement>("[data-photo-viewer-close]");
  const steps = dialog.querySelectorAll<HTMLButtonElement>("[data-photo-viewer-step]");
  if (!image || !status || !close) return;
  let index = 0;
  let opener: HTMLElement | null = null;

  function show(next: number): void {
    index = (next + links.length) % links.length;
    const link = links[index]!;
    image!.src = link.getAttribute("href") ?? "";
    image!.alt = link.querySelector("img")?.alt ?? "";
    image!.width = Number(link.dataset.width) || 0;
    image!.height = Number(link.dataset.height) || 0;
    status!.textContent = (dialog!.dataset.countText ?? "{n} / {count}")
      .replace("{n}", String(index + 1))
      .replace("{count}", String(links.length));
  }

  links.forEach((link, position) => {
    link.addEventListener("click", (event) => {
      if (event.button > 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      opener = link;
      show(position);
      for (const step of steps) step.hidden = links.length < 2;
      dialog.showModal();
      close.focus();
    });
  });
  for (const step of steps) {
    step.addEventListener("click", () => show(index + Number(step.dataset.photoViewerStep)));
  }
  dialog.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Tab") {
      // Tab and Shift+Tab cycle through the dialog's buttons instead of leaving the page.
      const buttons = [...dialog.querySelectorAll<HTMLButtonElement>("button")].filter((button) => !button.hidden);
      const at = buttons.indexOf(doc.activeElement as HTMLButtonElement);
      const next = event.shiftKey ? (at <= 0 ? buttons.length - 1 : at - 1) : (at + 1) % buttons.length;
      event.preventDefault();
      buttons[next]?.focus();
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      show(index + (event.key === "ArrowRight" ? 1 : -1));
    }
  });
  close.addEventListener("click", () => dialog.close());
  // A click on the backdrop (the dialog element itself, outside its content) closes it.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener("close", () => {
    image.removeAttribute("src");
    opener?.focus();
    opener = null;
  });
}
