import { useId } from "react";

import { LocationButton } from "../../lib/LocationButton";
import type { GeoPlace } from "../../lib/store";

import type { FilterValues, Option, SearchOptions, SearchStrings } from "./types";

interface SelectProps {
  name: string;
  label: string;
  value: string;
  options: Option[];
  /** Label of the blank option; none when the control always has a value. */
  blank?: string;
  errors?: string[];
  onChange: (name: string, value: string) => void;
}

/** What every filter control takes, from the search's state (useSearch). */
export function controlProps(
  state: { values: FilterValues; fieldErrors: Record<string, string[]> },
  onChange: ControlProps["onChange"],
  options: SearchOptions,
  strings: SearchStrings,
): ControlProps {
  return { values: state.values, options, strings, fieldErrors: state.fieldErrors, onChange };
}

export function Select({ name, label, value, options, blank, errors, onChange }: SelectProps) {
  const id = useId();
  const invalid = Boolean(errors?.length);
  return (
    <div>
      <label className="form-label small mb-1" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        name={name}
        className={`form-select${invalid ? " is-invalid" : ""}`}
        value={value}
        onChange={(event) => onChange(name, event.target.value)}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}-error` : undefined}
        data-testid={`search-${name}`}
      >
        {blank !== undefined && <option value="">{blank}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {invalid && (
        <div className="invalid-feedback" id={`${id}-error`}>
          {errors?.join(" ")}
        </div>
      )}
    </div>
  );
}

export function ageOptions(options: SearchOptions): Option[] {
  const out: Option[] = [];
  for (let age = options.minAge; age <= options.maxAge; age++) out.push({ value: String(age), label: String(age) });
  return out;
}

export interface ControlProps {
  values: FilterValues;
  options: SearchOptions;
  strings: SearchStrings;
  fieldErrors: Record<string, string[]>;
  onChange: (name: string, value: string) => void;
}

export function GenderControl({ values, options, strings, fieldErrors, onChange }: ControlProps) {
  return (
    <Select
      name="gender"
      label={strings.gender}
      value={values.gender ?? ""}
      options={options.genders}
      errors={fieldErrors.gender}
      onChange={onChange}
    />
  );
}

export function AgeControl({ which, values, options, strings, fieldErrors, onChange }: ControlProps & { which: "min_age" | "max_age" }) {
  return (
    <Select
      name={which}
      label={which === "min_age" ? strings.minAge : strings.maxAge}
      value={values[which] ?? ""}
      options={ageOptions(options)}
      errors={fieldErrors[which]}
      onChange={onChange}
    />
  );
}

export function CountryControl({ values, options, strings, fieldErrors, onChange }: ControlProps) {
  return (
    <Select
      name="country"
      label={strings.country}
      value={values.country ?? ""}
      options={options.countries.map((c) => ({ value: c.code, label: c.name }))}
      errors={fieldErrors.country}
      onChange={onChange}
    />
  );
}

/** The chosen country's regions (settings region_data); nothing for a country without. */
export function regionsOf(values: FilterValues, options: SearchOptions) {
  return options.regions[values.country ?? ""] ?? [];
}

export function RegionControl({ values, options, strings, fieldErrors, onChange }: ControlProps) {
  const regions = regionsOf(values, options);
  if (!regions.length) return null;
  return (
    <Select
      name="region"
      label={strings.region}
      value={values.region ?? ""}
      options={regions.map((r) => ({ value: r.code, label: r.name }))}
      blank={strings.anyRegion}
      errors={fieldErrors.region}
      onChange={onChange}
    />
  );
}

/** "Use my location": sets the country (when the site offers it) and its region. */
export function LocationControl({ values, options, strings, onChange, className }: ControlProps & { className?: string }) {
  const fillIn = (place: GeoPlace) => {
    if (!options.countries.some((c) => c.code === place.country)) return false;
    onChange("country", place.country);
    const region = regionsOf({ ...values, country: place.country }, options).some((r) => r.code === place.region);
    if (region) onChange("region", place.region);
    return true;
  };
  return <LocationButton strings={strings} onPlace={fillIn} testId="search-use-location" className={className} />;
}

export function FieldControl({ field, ...props }: ControlProps & { field: SearchOptions["fields"][number] }) {
  return (
    <Select
      name={field.name}
      label={field.label}
      value={props.values[field.name] ?? ""}
      options={field.options}
      blank={props.strings.any}
      errors={props.fieldErrors[field.name]}
      onChange={props.onChange}
    />
  );
}

/** One line for the phones' "Filters" button: the current choice, e.g.
 * "Female · 18–35 · United Kingdom · Yorkshire · Blonde" (chosen fields' answers last). */
export function filtersSummary(values: FilterValues, options: SearchOptions): string {
  const label = (list: Option[], value: string | undefined) => list.find((option) => option.value === value)?.label ?? "";
  const min = values.min_age || String(options.minAge);
  const max = values.max_age || String(options.maxAge);
  const parts = [
    options.genders.length > 1 ? label(options.genders, values.gender) : "",
    `${min}–${max}`,
    options.countries.find((country) => country.code === values.country)?.name ?? "",
    label(regionsOf(values, options).map((r) => ({ value: r.code, label: r.name })), values.region),
    ...options.fields.map((field) => label(field.options, values[field.name])),
  ];
  return parts.filter(Boolean).join(" · ");
}
