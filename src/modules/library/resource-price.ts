// A paid resource's price: an amount (at most 12 digits, then at most 3 decimals) in an ISO 4217
// currency, more than 0, with no more decimals than the currency has. Checked where a price is read
// (upload fields) and where a change names only one half of it (the resource service pairs it with
// the stored other half: PUT changes only the fields sent).
import { isCurrency, minorDigitsOf } from '../../shared/currencies.ts';

export interface Price {
  amount: string;
  currency: string;
}

const AMOUNT = /^\d{1,12}(\.\d{1,3})?$/;
const AMOUNT_MESSAGE = 'must be a decimal amount like 12.50 (at most 12 digits, then at most 3 decimals)';

/** Why an amount cannot be one, or nothing. */
export function amountRefusal(amount: unknown): string | undefined {
  return typeof amount === 'string' && AMOUNT.test(amount) ? undefined : AMOUNT_MESSAGE;
}

/** Why a currency cannot be one, or nothing. */
export function currencyRefusal(currency: unknown): string | undefined {
  return typeof currency === 'string' && isCurrency(currency.toUpperCase())
    ? undefined
    : 'must be an ISO 4217 code like EUR';
}

/** Why a price cannot be stored as sent (the field and the reason), or nothing. */
export function priceRefusal(amount: unknown, currency: unknown): [field: string, message: string] | undefined {
  const badAmount = amountRefusal(amount);
  if (badAmount) return ['priceAmount', badAmount];
  const badCurrency = currencyRefusal(currency);
  if (badCurrency) return ['priceCurrency', badCurrency];
  const value = amount as string;
  const code = (currency as string).toUpperCase();
  if (Number(value) === 0) return ['priceAmount', 'must be more than 0: a resource that costs nothing is not paid'];
  // stored as sent, it would be shown rounded (JPY 1.999 as 2): refused instead of changed
  const digits = minorDigitsOf(code);
  if ((value.split('.')[1] ?? '').replace(/0+$/, '').length > digits)
    return ['priceAmount', `has more decimals than ${code} has (${digits})`];
  return undefined;
}
