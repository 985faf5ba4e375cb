/**
 * Test setup only (vitest.config.ts setupFiles): jsdom 29 has HTMLDialogElement without
 * show(), showModal() or close(). This stands in for them as far as lib/Dialog.tsx needs:
 * the open attribute, the InvalidStateError of a detached dialog, the close event. No top
 * layer, no inertness, no focus moves: the component does its own focusing.
 */
if (typeof HTMLDialogElement !== "undefined" && typeof HTMLDialogElement.prototype.showModal !== "function") {
  Object.assign(HTMLDialogElement.prototype, {
    show(this: HTMLDialogElement) {
      this.setAttribute("open", "");
    },
    showModal(this: HTMLDialogElement) {
      if (!this.isConnected) throw new DOMException("The dialog is not connected.", "InvalidStateError");
      if (this.open) return;
      this.setAttribute("open", "");
    },
    close(this: HTMLDialogElement, returnValue?: string) {
      if (!this.open) return;
      this.removeAttribute("open");
      if (returnValue !== undefined) this.returnValue = returnValue;
      this.dispatchEvent(new Event("close"));
    },
  });
}

export {};
