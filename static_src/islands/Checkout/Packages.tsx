/**
 * /credits (spec §2 "Credits page with credit packages"): the site's packages in the
 * member's payment currency, the highlighted one marked, the list price struck through and
 * the discounted price when a discount applies, the price per credit, and a Buy per
 * package. A valid code in the discount field re-prices every package and goes with the
 * Buy link (?code=) to the checkout.
 */
import { DiscountField, discountText, useDiscountCode, useUntilExpired } from "./discount";
import { discounted, fill, formatMoney, perCredit } from "./money";
import type { Discount, Package, PackagesProps } from "./types";

function priced(pkg: Package, discount: Discount | null, serverDiscount: Discount | null): Package {
  // The server priced the packages with its active discount; anything else is priced here.
  if (discount === serverDiscount) return pkg;
  return { ...pkg, amount: discounted(pkg.listAmount, discount?.percentage ?? 0) };
}

function buyHref(pkg: Package, code: Discount | null): string {
  if (!code || code.kind !== "code") return pkg.href;
  const url = new URL(pkg.href, "http://x");
  url.searchParams.set("code", code.code);
  return url.pathname + url.search;
}

export function Packages(props: PackagesProps) {
  const { strings, locale, frozen } = props;
  const active = useUntilExpired(props.discount);
  const code = useDiscountCode({
    url: props.urls.discount,
    strings,
    initialCode: props.code,
    initialError: props.codeError,
    initialDiscount: props.codeDiscount ?? null,
  });
  const discount = code.applied ?? active;

  return (
    <div className="credits-packages" data-testid="credits-packages">
      {discount ? (
        <p className="credits-discount text-center mb-4" data-testid="credits-discount">
          <span className="badge text-bg-danger fs-6 me-1">−{discount.percentage}%</span>
          <span>{discountText(discount, strings)}</span>
        </p>
      ) : null}
      <div className="row row-cols-1 row-cols-md-3 g-3 justify-content-center">
        {props.packages.map((original) => {
          const pkg = priced(original, discount, props.discount);
          const isDiscounted = pkg.amount < pkg.listAmount;
          return (
            <div className="col" key={pkg.id}>
              <div
                className={`card package-card h-100 text-center${pkg.highlighted ? " package-card-highlighted" : ""}`}
                data-testid={`package-${pkg.id}`}
                data-highlighted={pkg.highlighted ? "true" : undefined}
              >
                {pkg.highlighted ? <div className="package-ribbon">{strings.mostPopular}</div> : null}
                <div className="card-body d-flex flex-column p-3 p-md-4">
                  <div className="package-credits">
                    <span className="display-6 fw-bold">{pkg.credits}</span>{" "}
                    <span className="text-body-secondary">{pkg.unit}</span>
                  </div>
                  <div className="package-price my-2">
                    {isDiscounted ? (
                      <del className="text-body-secondary me-2" data-testid="package-list-price">
                        <span className="visually-hidden">{fill(strings.listPrice, { price: "" })}</span>
                        {formatMoney(pkg.listAmount, pkg.currency, locale)}
                      </del>
                    ) : null}
                    <span className="fs-3 fw-semibold" data-testid="package-price">
                      {formatMoney(pkg.amount, pkg.currency, locale)}
                    </span>
                  </div>
                  <p className="small text-body-secondary mb-3" data-testid="package-per-credit">
                    {fill(strings.perCredit, { price: formatMoney(perCredit(pkg.amount, pkg.credits), pkg.currency, locale) })}
                  </p>
                  {frozen ? null : (
                    <a
                      className={`btn ${pkg.highlighted ? "btn-primary" : "btn-outline-primary"} btn-lg mt-auto`}
                      href={buyHref(pkg, code.applied)}
                      data-testid={`package-buy-${pkg.id}`}
                    >
                      {strings.buy}
                    </a>
                  )}
                </div>
              </div>
            </div>
          );
        })}
      </div>
      {frozen ? null : (
        <div className="credits-code card border-0 shadow-sm mt-4 mx-auto">
          <div className="card-body">
            <DiscountField state={code} strings={strings} />
          </div>
        </div>
      )}
    </div>
  );
}
