/**
 * Steps 1 to 4 (spec §4): photo, location, personal info, about me. Each can be skipped;
 * what is filled in goes to the member's profile (POST /api/signup/photo.php, PATCH
 * /api/signup/profile.php) and stays in the form when the server refuses it.
 */
import { useId, useRef, useState, type FormEvent } from "react";

import { post, request } from "../../lib/api";
import { LocationButton } from "../../lib/LocationButton";
import type { GeoPlace } from "../../lib/store";
import {
  describedBy,
  Feedback,
  ErrorAlert,
  fill,
  focusFirstInvalid,
  invalidClass,
  StepButtons,
  submitTo,
  toApiError,
  withoutField,
} from "./components";
import type { FieldErrors, SignupProps, StepProfile } from "./types";

export interface UploadedPhoto {
  id: number;
  status: string;
  thumb_url: string;
}

interface PhotoResponse {
  photo: UploadedPhoto;
  photo_count: number;
  photo_limit: number;
}

interface ProfileResponse {
  profile: StepProfile;
}

/** PATCH the step's fields; resolves to the stored profile or throws the ApiError. */
export async function saveProfile(url: string, data: Record<string, unknown>): Promise<StepProfile> {
  const response = await request<ProfileResponse>("PATCH", url, { body: data });
  return response.profile;
}

/** Saving with its busy flag, field errors and general message. */
function useSave(strings: SignupProps["strings"]) {
  const formRef = useRef<HTMLFormElement>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);

  const run = async (action: () => Promise<void>) => {
    if (busy) return;
    setBusy(true);
    setMessage(null);
    try {
      await action();
      setErrors({});
    } catch (err) {
      const error = toApiError(err, strings.error);
      setErrors(error.fields);
      setMessage(error.message);
      setTimeout(() => focusFirstInvalid(formRef.current), 0);
    } finally {
      setBusy(false);
    }
  };
  const clear = (field: string) => setErrors((current) => withoutField(current, field));
  return { formRef, busy, errors, message, run, clear };
}

interface StepProps {
  props: SignupProps;
  profile: StepProfile;
  onProfile: (profile: StepProfile) => void;
  onNext: () => void;
  onBack?: () => void;
}

// --- 1: photo --------------------------------------------------------------------------------

interface PhotoStepProps {
  props: SignupProps;
  photos: UploadedPhoto[];
  onPhotos: (photos: UploadedPhoto[]) => void;
  onNext: () => void;
}

export function PhotoStep({ props, photos, onPhotos, onNext }: PhotoStepProps) {
  const { strings, urls } = props;
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[] | undefined>();
  const [limit, setLimit] = useState(props.photoLimit);

  const upload = async (file: File) => {
    const body = new FormData();
    body.append("photo", file);
    setBusy(true);
    setErrors(undefined);
    try {
      const data = await post<PhotoResponse>(urls.photo, body, { retries: 0 });
      onPhotos([...photos, data.photo]);
      if (typeof data.photo_limit === "number") setLimit(data.photo_limit);
    } catch (err) {
      const error = toApiError(err, strings.error);
      setErrors(error.fields.photo ?? [error.message]);
      setTimeout(() => inputRef.current?.focus(), 0);
    } finally {
      setBusy(false);
      if (inputRef.current) inputRef.current.value = "";
    }
  };

  const pending = photos.some((photo) => photo.status !== "active");
  const feedbackId = `${id}-photo-feedback`;

  return (
    <form
      noValidate
      onSubmit={submitTo(onNext)}
      aria-busy={busy}
      data-testid="signup-photo-form"
    >
      <p>{strings.photoIntro}</p>
      {photos.length > 0 && (
        <ul className="list-unstyled d-flex flex-wrap gap-2 mb-3">
          {photos.map((photo) => (
            <li key={photo.id}>
              <img
                className="rounded object-fit-cover signup-photo-thumb"
                src={photo.thumb_url}
                alt={strings.photoAlt}
                width={112}
                height={112}
                data-testid="signup-photo-preview"
              />
            </li>
          ))}
        </ul>
      )}
      {pending && <p className="small text-body-secondary">{strings.photoPending}</p>}
      {photos.length < limit && (
        <div className="mb-3">
          <label className="form-label" htmlFor={`${id}-photo`}>
            {photos.length ? strings.photoAnother : strings.photoLabel}
          </label>
          <input
            ref={inputRef}
            className={invalidClass("form-control", errors)}
            id={`${id}-photo`}
            name="photo"
            type="file"
            accept="image/jpeg,image/png,image/webp"
            disabled={busy}
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) void upload(file);
            }}
            aria-invalid={errors ? true : undefined}
            aria-describedby={describedBy(`${id}-photo-help`, errors && feedbackId)}
            data-testid="signup-photo-input"
          />
          <div className="form-text" id={`${id}-photo-help`}>
            {strings.photoHelp}
          </div>
          <Feedback id={feedbackId} field="photo" messages={errors} />
        </div>
      )}
      {photos.length >= limit && <Feedback id={feedbackId} field="photo" messages={errors} />}
      {busy && (
        <div className="d-flex align-items-center gap-2 text-body-secondary" role="status">
          <span className="spinner-border spinner-border-sm" aria-hidden="true" />
          <span>{strings.photoUploading}</span>
        </div>
      )}
      <StepButtons
        strings={strings}
        busy={busy}
        submitLabel={strings.next}
        onSkip={photos.length ? undefined : onNext}
      />
    </form>
  );
}

// --- 2: location ---------------------------------------------------------------------------

export function LocationStep({ props, profile, onProfile, onNext, onBack }: StepProps) {
  const { strings, urls, countries, regions } = props;
  const id = useId();
  const save = useSave(strings);
  const known = countries.some((c) => c.code === profile.country);
  const country = known ? profile.country : props.defaultCountry;
  const regionList = regions[country] ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      onProfile(
        await saveProfile(urls.profile, { country, region: profile.region, city: profile.city }),
      );
      onNext();
    });
  };
  const set = (patch: Partial<StepProfile>, field: string) => {
    onProfile({ ...profile, country, ...patch });
    save.clear(field);
  };
  /** "Use my location": only a country the site offers; a region only when it is one of its list. */
  const fillIn = (place: GeoPlace) => {
    if (!countries.some((c) => c.code === place.country)) return false;
    const region = (regions[place.country] ?? []).some((r) => r.code === place.region) ? place.region : "";
    onProfile({ ...profile, country: place.country, region, city: place.city.slice(0, props.cityMaxLength) });
    for (const field of ["country", "region", "city"]) save.clear(field);
    return true;
  };

  return (
    <form noValidate onSubmit={submit} ref={save.formRef} aria-busy={save.busy} data-testid="signup-location-form">
      <ErrorAlert message={Object.keys(save.errors).length ? null : save.message} />
      <LocationButton strings={strings} onPlace={fillIn} testId="signup-use-location" />
      <div className="mb-3">
        <label className="form-label" htmlFor={`${id}-country`}>
          {strings.country}
        </label>
        <select
          className={invalidClass("form-select", save.errors.country)}
          id={`${id}-country`}
          name="country"
          autoComplete="country"
          value={country}
          onChange={(event) => set({ country: event.target.value, region: "" }, "country")}
          aria-invalid={save.errors.country ? true : undefined}
          aria-describedby={describedBy(save.errors.country && `${id}-country-feedback`)}
          data-testid="signup-country"
        >
          {countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
        <Feedback id={`${id}-country-feedback`} field="country" messages={save.errors.country} />
      </div>
      <div className="mb-3">
        <label className="form-label" htmlFor={`${id}-region`}>
          {strings.region}
        </label>
        <select
          className={invalidClass("form-select", save.errors.region)}
          id={`${id}-region`}
          name="region"
          autoComplete="address-level1"
          value={profile.region}
          onChange={(event) => set({ region: event.target.value }, "region")}
          disabled={regionList.length === 0}
          aria-invalid={save.errors.region ? true : undefined}
          aria-describedby={describedBy(save.errors.region && `${id}-region-feedback`)}
          data-testid="signup-region"
        >
          <option value="">{strings.regionChoose}</option>
          {regionList.map((region) => (
            <option key={region.code} value={region.code}>
              {region.name}
            </option>
          ))}
        </select>
        <Feedback id={`${id}-region-feedback`} field="region" messages={save.errors.region} />
      </div>
      <div className="mb-3">
        <label className="form-label" htmlFor={`${id}-city`}>
          {strings.city}
        </label>
        <input
          className={invalidClass("form-control", save.errors.city)}
          id={`${id}-city`}
          name="city"
          type="text"
          autoComplete="address-level2"
          maxLength={props.cityMaxLength}
          value={profile.city}
          onChange={(event) => set({ city: event.target.value }, "city")}
          aria-invalid={save.errors.city ? true : undefined}
          aria-describedby={describedBy(save.errors.city && `${id}-city-feedback`)}
          data-testid="signup-city"
        />
        <Feedback id={`${id}-city-feedback`} field="city" messages={save.errors.city} />
      </div>
      <StepButtons strings={strings} busy={save.busy} submitLabel={strings.save} onSkip={onNext} onBack={onBack} />
    </form>
  );
}

// --- 3: personal info ------------------------------------------------------------------------

interface ChoiceGroupProps {
  id: string;
  name: "gender" | "sexuality";
  legend: string;
  choices: SignupProps["genders"];
  value: string;
  messages?: string[];
  onChange: (value: string) => void;
}

function ChoiceGroup({ id, name, legend, choices, value, messages, onChange }: ChoiceGroupProps) {
  const feedbackId = `${id}-${name}-feedback`;
  return (
    <fieldset
      className="mb-3"
      aria-describedby={describedBy(!!messages?.length && feedbackId)}
      aria-invalid={messages?.length ? true : undefined}
      data-testid={`signup-${name}`}
    >
      <legend className="form-label fs-6 mb-2">{legend}</legend>
      <div className="d-flex flex-wrap gap-2">
        {choices.map((choice) => (
          <div key={choice.value}>
            <input
              className={invalidClass("btn-check", messages)}
              type="radio"
              name={`${id}-${name}`}
              id={`${id}-${name}-${choice.value}`}
              value={choice.value}
              checked={value === choice.value}
              onChange={() => onChange(choice.value)}
              data-testid={`signup-${name}-${choice.value}`}
            />
            <label className="btn btn-outline-primary" htmlFor={`${id}-${name}-${choice.value}`}>
              {choice.label}
            </label>
          </div>
        ))}
      </div>
      <Feedback id={feedbackId} field={name} messages={messages} />
    </fieldset>
  );
}

export function PersonalStep({ props, profile, onProfile, onNext, onBack }: StepProps) {
  const { strings, urls } = props;
  const id = useId();
  const save = useSave(strings);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      onProfile(await saveProfile(urls.profile, { gender: profile.gender, sexuality: profile.sexuality }));
      onNext();
    });
  };

  return (
    <form noValidate onSubmit={submit} ref={save.formRef} aria-busy={save.busy} data-testid="signup-personal-form">
      <ErrorAlert message={Object.keys(save.errors).length ? null : save.message} />
      <ChoiceGroup
        id={id}
        name="gender"
        legend={strings.gender}
        choices={props.genders}
        value={profile.gender}
        messages={save.errors.gender}
        onChange={(gender) => {
          onProfile({ ...profile, gender });
          save.clear("gender");
        }}
      />
      <ChoiceGroup
        id={id}
        name="sexuality"
        legend={strings.sexuality}
        choices={props.sexualities}
        value={profile.sexuality}
        messages={save.errors.sexuality}
        onChange={(sexuality) => {
          onProfile({ ...profile, sexuality });
          save.clear("sexuality");
        }}
      />
      <StepButtons strings={strings} busy={save.busy} submitLabel={strings.save} onSkip={onNext} onBack={onBack} />
    </form>
  );
}

// --- 4: about me -----------------------------------------------------------------------------

export function AboutStep({ props, profile, onProfile, onNext, onBack }: StepProps) {
  const { strings, urls, aboutMaxLength } = props;
  const id = useId();
  const save = useSave(strings);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      onProfile(await saveProfile(urls.profile, { about_me: profile.about_me, done: true }));
      onNext();
    });
  };
  const skip = () => {
    // Recorded so /complete-signup stops offering the steps; a failure changes nothing here.
    void saveProfile(urls.profile, { done: true }).catch(() => {});
    onNext();
  };

  return (
    <form noValidate onSubmit={submit} ref={save.formRef} aria-busy={save.busy} data-testid="signup-about-form">
      <ErrorAlert message={Object.keys(save.errors).length ? null : save.message} />
      <div className="mb-3">
        <label className="form-label" htmlFor={`${id}-about`}>
          {strings.aboutLabel}
        </label>
        <textarea
          className={invalidClass("form-control", save.errors.about_me)}
          id={`${id}-about`}
          name="about_me"
          rows={6}
          maxLength={aboutMaxLength}
          value={profile.about_me}
          onChange={(event) => {
            onProfile({ ...profile, about_me: event.target.value });
            save.clear("about_me");
          }}
          aria-invalid={save.errors.about_me ? true : undefined}
          aria-describedby={describedBy(`${id}-about-count`, save.errors.about_me && `${id}-about-feedback`)}
          data-testid="signup-about"
        />
        <div className="form-text text-end" id={`${id}-about-count`}>
          {fill(strings.aboutCount, { count: profile.about_me.length, max: aboutMaxLength })}
        </div>
        <Feedback id={`${id}-about-feedback`} field="about_me" messages={save.errors.about_me} />
      </div>
      <StepButtons strings={strings} busy={save.busy} submitLabel={strings.save} onSkip={skip} onBack={onBack} />
    </form>
  );
}
