/**
 * The landers' video (templates/landers/_video.html): muted, looping, rendered with
 * `controls` and without `autoplay`, so with no script nothing moves by itself.
 *
 * Here it starts playing unless the visitor prefers reduced motion; then the poster
 * stays and the play button (the controls, or the cinema lander's toggle) starts it.
 * The cinema lander's video is a background: its controls go and a server-rendered
 * toggle button ([data-lander-video-toggle], hidden until now) plays and pauses it.
 */

import { prefersReducedMotion } from "../lib/motion";

function wireToggle(video: HTMLVideoElement, toggle: HTMLButtonElement): void {
  const render = () => {
    const playing = !video.paused;
    toggle.textContent = (playing ? toggle.dataset.pauseText : toggle.dataset.playText) ?? "";
    toggle.setAttribute("aria-pressed", playing ? "true" : "false");
  };
  toggle.addEventListener("click", () => {
    if (video.paused) void video.play().catch(() => undefined);
    else video.pause();
  });
  video.addEventListener("play", render);
  video.addEventListener("pause", render);
  render();
  toggle.hidden = false;
}

export function installLanderVideos(root: ParentNode = document, win: Window = window): void {
  const reduced = prefersReducedMotion(win);
  for (const video of root.querySelectorAll<HTMLVideoElement>("video[data-lander-video]")) {
    const toggle = video.parentElement?.querySelector<HTMLButtonElement>("[data-lander-video-toggle]") ?? null;
    if (toggle) {
      video.controls = false;
      wireToggle(video, toggle);
    }
    if (reduced) continue;
    video.muted = true; // autoplay is only allowed muted
    void video.play().catch(() => {
      // The browser refused to start it: the poster and the play button stay.
    });
  }
}
