/**
 * "Use my location" next to a form's country, region and town. The device is asked only
 * when the member taps; the code that asks (lib/geolocation.ts) is loaded then, with
 * import(). Not shown where the browser has no geolocation. A failure only adds a polite
 * note: the fields keep what the member chose.
 */
import { useId, useState } from "react";

import { appStore, useStore, type AppState, type GeoPlace } from "./store";

export interface LocationStrings {
  useLocation: string;
  locating: string;
  locationFound: string;
  locationFailed: string;
  locationDenied: string;
}

interface LocationButtonProps {
  strings: LocationStrings;
  /** Fills the form in; false when the form cannot use the place (a country it does not offer). */
  onPlace: (place: GeoPlace) => boolean;
  testId: string;
  className?: string;
}

let geolocation: Promise<typeof import("./geolocation")> | null = null;

const selectPermission = (state: AppState) => state.geolocation?.permission;

/** A refusal kept from an earlier page (lib/geolocation.ts keeps it for an hour). */
function deniedBefore(): boolean {
  try {
    const kept = JSON.parse(localStorage.getItem("geolocation") || "null");
    return kept?.permission === "denied" && Date.now() - kept.at < 36e5;
  } catch {
    return false;
  }
}

export function LocationButton({ strings, onPlace, testId, className = "mb-3" }: LocationButtonProps) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  const [deniedOnLoad] = useState(deniedBefore);
  const permission = useStore(appStore, selectPermission);
  if (typeof navigator === "undefined" || !navigator.geolocation) return null;

  const tap = async () => {
    if (busy) return;
    setBusy(true);
    setNote("");
    try {
      geolocation ??= import("./geolocation");
      const result = await (await geolocation).locate();
      setNote(
        result.place
          ? onPlace(result.place)
            ? strings.locationFound
            : strings.locationFailed
          : result.reason === "denied"
            ? strings.locationDenied
            : strings.locationFailed,
      );
    } catch {
      geolocation = null;
      setNote(strings.locationFailed);
    } finally {
      setBusy(false);
    }
  };

  const denied = permission ? permission === "denied" : deniedOnLoad;
  return (
    <div className={className}>
      <button
        type="button"
        className={`btn btn-outline-secondary btn-sm${busy ? " disabled" : ""}`}
        onClick={() => void tap()}
        aria-disabled={busy || undefined}
        aria-describedby={`${id}-note`}
        data-testid={testId}
      >
        {busy ? (
          <span className="spinner-border spinner-border-sm me-1" aria-hidden="true" />
        ) : (
          <svg className="me-1" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="14" height="14" fill="currentColor" aria-hidden="true" focusable="false">
            <path d="M8 16s6-5.686 6-10A6 6 0 0 0 2 6c0 4.314 6 10 6 10m0-7a3 3 0 1 1 0-6 3 3 0 0 1 0 6" />
          </svg>
        )}
        {busy ? strings.locating : strings.useLocation}
      </button>
      <div className="form-text" id={`${id}-note`} aria-live="polite" data-testid={`${testId}-note`}>
        {note || (denied && !busy ? strings.locationDenied : "")}
      </div>
    </div>
  );
}
