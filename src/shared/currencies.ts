// ISO 4217 as the runtime's ICU knows it: which codes exist and how many minor digits each has
// (EUR 2, JPY 0, KWD 3). Prices are checked against it on input and formatted with it on output.

const KNOWN = new Set(Intl.supportedValuesOf('currency'));

export const isCurrency = (code: string): boolean => KNOWN.has(code);

const minorDigits = new Map<string, number>();

/**
 * The currency's minor digits; two for a code ICU does not know (only reachable for stored values).
 * Remembered per code: every paid resource in a list formats its price with them.
 */
export function minorDigitsOf(currency: string): number {
  let digits = minorDigits.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    minorDigits.set(currency, digits);
  }
  return digits;
}
