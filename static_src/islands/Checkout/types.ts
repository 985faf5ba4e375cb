/** Props of the Checkout island, built by apps/payments/views_credits.py. */

export interface CheckoutStrings {
  mostPopular: string;
  perCredit: string;
  buy: string;
  listPrice: string;
  youPay: string;
  discountTimeBonus: string;
  discountWelcome: string;
  discountCode: string;
  removeCode: string;
  codeLabel: string;
  codePlaceholder: string;
  codeApply: string;
  codeChecking: string;
  codeApplied: string;
  codeEmpty: string;
  package: string;
  chooseMethod: string;
  pay: string;
  paying: string;
  directDebitNote: string;
  secure: string;
  choosePackage: string;
  frozen: string;
  loading: string;
  pending: string;
  pendingHelp: string;
  slow: string;
  checkAgain: string;
  completed: string;
  premium: string;
  premiumBadge: string;
  failed: string;
  tryAgainWith: string;
  tryOther: string;
  tryAgain: string;
  payPal: string;
  recurringFailed: string;
  continue: string;
  transactions: string;
  close: string;
  error: string;
}

export type DiscountKind = "code" | "timebonus" | "welcome";

export interface Discount {
  code: string;
  percentage: number;
  kind: DiscountKind | string;
  /** ISO date-time, or null for no end. */
  expires: string | null;
}

export interface Package {
  id: number;
  credits: number;
  /** "credit" or "credits", translated for this number. */
  unit: string;
  highlighted: boolean;
  currency: string;
  /** Minor units, before the discount. */
  listAmount: number;
  /** Minor units, after the discount the server applied (the active discount). */
  amount: number;
  /** The package's checkout page (/credits/<id>); "" on the checkout itself. */
  href: string;
}

export interface Method {
  code: string;
  label: string;
  /** /credits/<id>/<code>, or the SMS direct debit page for "directdebit". */
  href: string;
}

export type PaymentStatus = "loading" | "pending" | "completed" | "failed";

/** payment_payload of apps.payments.services, plus the texts of apps.payments.api.payment. */
export interface Payment {
  id: string;
  status: PaymentStatus;
  credits: number;
  amount: number;
  currency: string;
  method: string;
  package_id: number;
  balance: number;
  paid_user: boolean;
  credits_added_text?: string;
  balance_text?: string;
}

export interface CheckoutUrls {
  payment: string;
  discount: string;
  credits: string;
  repeatOrder: string;
  transactions: string;
}

interface CommonProps {
  strings: CheckoutStrings;
  locale: string;
  balance: number;
  paidUser: boolean;
  frozen: boolean;
  urls: CheckoutUrls;
  /** The member's active discount (time bonus or welcome), priced in by the server. */
  discount: Discount | null;
  /** A code from the address (?code=): what the field shows. */
  code: string;
  /** The code's discount when the server found it valid. */
  codeDiscount?: Discount | null;
  /** The code's error when it is not. */
  codeError: string;
}

export interface PackagesProps extends CommonProps {
  mode: "packages";
  packages: Package[];
}

export interface CheckoutPageProps extends CommonProps {
  mode: "checkout";
  package: Package;
  packageOnSale: boolean;
  methods: Method[];
  /** The method of the address (/credits/<id>/<method>) or of the payment. */
  method: string | null;
  /** The payment the gateway sent the member back with (?payment=). */
  payment: Payment | null;
  /** The payment was a repeat order on a stored mandate. */
  recurring: boolean;
  paypalUrl: string;
  membersUrl: string;
}

export type CheckoutProps = PackagesProps | CheckoutPageProps;
