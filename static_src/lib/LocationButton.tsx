/**
 * "Use my location" next to a form's country, region and town. The device is asked only
 * when the member taps; the code that asks (lib/geolocation.ts) is loaded then, with
 * import(). Not shown where the browser has no geolocation. A failure only adds a polite
 * note: the fields keep what the member chose.
 */
import { useId, useState } from "react";

import type { GeoPlace } from "./store";

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

/** A refusal kept by an earlier tap, on this page or another (lib/geolocation.ts keeps it
 * for an hour); after a tap here, its own note says what happened. */
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
        {busy && <span className="spinner-border spinner-border-sm me-1" aria-hidden="true" />}
        {busy ? strings.locating : strings.useLocation}
      </button>
      <div className="form-text" id={`${id}-note`} aria-live="polite" data-testid={`${testId}-note`}>
        {note || (deniedOnLoad && !busy ? strings.locationDenied : "")}
      </div>
    </div>
  );
}
