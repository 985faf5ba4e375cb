// Minimal typings for the Bootstrap 5.3 component modules the base entry imports
// (bootstrap/js/dist/*.js). Each module registers its data-api handlers when loaded.
declare module "bootstrap/js/dist/*.js" {
  export default class BootstrapComponent {
    static getOrCreateInstance(element: Element | string, config?: Record<string, unknown>): BootstrapComponent;
    static getInstance(element: Element | string): BootstrapComponent | null;
    show?(): void;
    hide?(): void;
    toggle?(): void;
    dispose(): void;
  }
}

declare module "bootstrap/js/dist/toast.js" {
  export default class Toast {
    constructor(element: Element | string, config?: { animation?: boolean; autohide?: boolean; delay?: number });
    static getOrCreateInstance(element: Element | string, config?: { animation?: boolean; autohide?: boolean; delay?: number }): Toast;
    static getInstance(element: Element | string): Toast | null;
    show(): void;
    hide(): void;
    isShown(): boolean;
    dispose(): void;
  }
}
