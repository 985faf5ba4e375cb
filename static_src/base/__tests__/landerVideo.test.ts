import { afterEach, describe, expect, it, vi } from "vitest";

import { prefersReducedMotion } from "../../lib/motion";
import { installLanderVideos } from "../landerVideo";

function fakeWindow(matching: string[]): Window {
  return {
    matchMedia: (query: string) => ({ matches: matching.includes(query) }) as MediaQueryList,
  } as unknown as Window;
}

const REDUCE = "(prefers-reduced-motion: reduce)";

function render(html: string): HTMLVideoElement {
  document.body.innerHTML = html;
  const video = document.querySelector<HTMLVideoElement>("video")!;
  let paused = true;
  Object.defineProperty(video, "paused", { get: () => paused });
  video.play = vi.fn(() => {
    paused = false;
    video.dispatchEvent(new Event("play"));
    return Promise.resolve();
  });
  video.pause = vi.fn(() => {
    paused = true;
    video.dispatchEvent(new Event("pause"));
  });
  return video;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("prefersReducedMotion", () => {
  it("reads the media query", () => {
    expect(prefersReducedMotion(fakeWindow([REDUCE]))).toBe(true);
    expect(prefersReducedMotion(fakeWindow([]))).toBe(false);
    expect(prefersReducedMotion({} as Window)).toBe(false);
  });
});

describe("installLanderVideos", () => {
  it("plays the video muted when motion is fine", () => {
    const video = render('<video data-lander-video controls loop></video>');
    installLanderVideos(document, fakeWindow([]));
    expect(video.play).toHaveBeenCalledOnce();
    expect(video.muted).toBe(true);
    expect(video.controls).toBe(true);
  });

  it("leaves it still with its play button when motion is reduced", () => {
    const video = render('<video data-lander-video controls loop></video>');
    installLanderVideos(document, fakeWindow([REDUCE]));
    expect(video.play).not.toHaveBeenCalled();
    expect(video.controls).toBe(true);
  });

  it("gives a background video a play/pause toggle instead of controls", () => {
    const video = render(
      `<section><video data-lander-video controls loop></video>
       <button type="button" data-lander-video-toggle data-play-text="Play video" data-pause-text="Pause video" hidden>Play video</button></section>`,
    );
    const toggle = document.querySelector<HTMLButtonElement>("[data-lander-video-toggle]")!;
    installLanderVideos(document, fakeWindow([REDUCE]));
    expect(video.controls).toBe(false);
    expect(toggle.hidden).toBe(false);
    expect(toggle.textContent).toBe("Play video");
    toggle.click();
    expect(video.play).toHaveBeenCalledOnce();
    expect(toggle.textContent).toBe("Pause video");
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    toggle.click();
    expect(video.pause).toHaveBeenCalledOnce();
    expect(toggle.textContent).toBe("Play video");
  });

  it("ignores a refused play()", async () => {
    const video = render('<video data-lander-video controls loop></video>');
    video.play = vi.fn(() => Promise.reject(new Error("NotAllowedError")));
    installLanderVideos(document, fakeWindow([]));
    await Promise.resolve();
    expect(video.play).toHaveBeenCalledOnce();
  });
});
