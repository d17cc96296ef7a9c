// ISO 4217 as the runtime's ICU knows it: which codes exist and how many minor digits each has
// (EUR 2, JPY 0, KWD 3). Prices are checked against it on input and formatted with it on output.

const KNOWN = new Set(Intl.supportedValuesOf('currency'));

export const isCurrency = (code: string): boolean => KNOWN.has(code);

/** The currency's minor digits; two for a code ICU does not know (only reachable for stored values). */
export function minorDigitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
