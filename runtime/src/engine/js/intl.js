// Intl.NumberFormat, Intl.PluralRules, Intl.DateTimeFormat and the
// toLocaleString family. QuickJS's own ignore the locale and most options;
// these follow V8's output for the common cases models write: grouping and
// decimal separators for any locale (ICU4X data, host-side), currency,
// percent, compact and fraction-digit options, plural categories, and
// English (plus sv-SE's ISO-like and en-GB's day-first) date formats in UTC.
// Hand-written: no library offers ECMA-402 inside this isolate.
import { op_gg_intl_format_decimal, op_gg_intl_plural } from "ext:core/ops";

const NBSP = "\u00a0";
const NativeIntl = globalThis.Intl;

function pickLocale(locales) {
  const first = Array.isArray(locales) ? locales[0] : locales;
  if (first === undefined) return "en-US";
  if (typeof first !== "string" || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(first)) {
    throw new RangeError(`Incorrect locale information provided`);
  }
  return first;
}
const language = (locale) => locale.split("-")[0].toLowerCase();

// A number's shortest decimal form, without exponent: "1234.5", "0.0000001".
function plainDigits(x) {
  const s = String(Math.abs(x));
  const m = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = m[1] + (m[2] ?? "");
  const point = m[1].length + Number(m[3]);
  if (point <= 0) return "0." + "0".repeat(-point) + digits;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return digits.slice(0, point) + "." + digits.slice(point);
}

// Rounds a plain decimal string to `places` fraction digits, half away from
// zero on its decimal digits (as ICU does), then pads/trims to [min, max].
function roundFraction(plain, min, max) {
  let [int, frac = ""] = plain.split(".");
  if (frac.length > max) {
    const up = frac.charCodeAt(max) >= 53; // "5"
    let digits = (int + frac.slice(0, max)).split("");
    if (up) {
      let i = digits.length - 1;
      for (; i >= 0; i--) {
        if (digits[i] === "9") digits[i] = "0";
        else {
          digits[i] = String(Number(digits[i]) + 1);
          break;
        }
      }
      if (i < 0) digits.unshift("1");
    }
    const joined = digits.join("");
    int = joined.slice(0, joined.length - max) || "0";
    frac = joined.slice(joined.length - max);
  }
  while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
  while (frac.length < min) frac += "0";
  return frac ? `${int}.${frac}` : int;
}

function roundSignificant(x, maxSig, minSig) {
  if (x === 0) return "0";
  let s = Math.abs(x).toPrecision(maxSig);
  s = plainDigits(Number(s));
  const [int, frac = ""] = s.split(".");
  const sig = (int === "0" ? "" : int).length;
  const need = Math.max(0, minSig - sig);
  return roundFraction(s, Math.min(need, 20), Math.max(frac.length, need));
}

const CURRENCY_SYMBOLS = {
  USD: "$", EUR: "\u20ac", GBP: "\u00a3", JPY: "\u00a5", INR: "\u20b9", CNY: "CN\u00a5", KRW: "\u20a9",
  CAD: "CA$", AUD: "A$", NZD: "NZ$", HKD: "HK$", MXN: "MX$", BRL: "R$",
  ILS: "\u20aa", VND: "\u20ab", TWD: "NT$", PHP: "\u20b1",
};
const ZERO_DIGIT_CURRENCIES = new Set(["JPY", "KRW", "VND", "CLP", "ISK", "HUF_"]);
const SUFFIX_LANGUAGES = new Set([
  "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "fi", "da", "nb", "no", "cs", "sk", "ru", "uk", "tr", "hu", "ro", "el",
]);

function integerOption(options, name, min, max, fallback) {
  const value = options[name];
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new RangeError(`${name} value is out of range.`);
  }
  return Math.floor(n);
}

function currencyBody(body, o, lang) {
  const code = o.currency;
  if (o.currencyDisplay === "name") return `${body} ${code}`;
  const symbol = o.currencyDisplay === "code"
    ? code
    : lang === "ja" && code === "JPY" ? "\uffe5" : (CURRENCY_SYMBOLS[code] ?? code);
  if (SUFFIX_LANGUAGES.has(lang)) return `${body}${NBSP}${symbol}`;
  return /^[A-Z]{3}$/.test(symbol) ? `${symbol}${NBSP}${body}` : `${symbol}${body}`;
}

// Short unit labels (English), as V8 prints them.
const UNITS = {
  "kilometer-per-hour": "km/h", "mile-per-hour": "mph", "meter-per-second": "m/s",
  kilometer: "km", meter: "m", centimeter: "cm", millimeter: "mm", mile: "mi", foot: "ft", inch: "in",
  kilogram: "kg", gram: "g", pound: "lb", ounce: "oz", liter: "L", milliliter: "mL",
  celsius: "\u00b0C", fahrenheit: "\u00b0F", percent: "%",
  byte: "byte", kilobyte: "kB", megabyte: "MB", gigabyte: "GB", terabyte: "TB",
  millisecond: "ms", second: "sec", minute: "min", hour: "hr", day: "day", week: "wk", month: "mth", year: "yr",
};
const LONG_UNITS = { "kilometer-per-hour": "kilometers per hour", "mile-per-hour": "miles per hour" };
function unitBody(body, unit, display, x) {
  if (display === "long") {
    const name = LONG_UNITS[unit] ?? `${unit}s`;
    return `${body} ${x === 1 ? name.replace(/s\b/, "").replace(/s per/, " per") : name}`;
  }
  let label = UNITS[unit] ?? unit;
  if ((unit === "day" || unit === "byte") && x !== 1) label += "s";
  if (display === "narrow" || label === "%" || label.startsWith("\u00b0")) return `${body}${label}`;
  return `${body} ${label}`;
}

// formatToParts from a formatted number: integer, group, decimal, fraction,
// sign, currency, percent and literal pieces.
function numberParts(text, locale) {
  const sample = op_gg_intl_format_decimal(locale, "1000.5", true);
  const group = sample.length > 6 ? sample[1] : ",";
  const decimal = sample[sample.length - 2];
  const parts = [];
  let seenDecimal = false;
  const re = /(\d+)|(.)/gsu;
  for (const [, num, ch] of text.matchAll(re)) {
    if (num !== undefined) parts.push({ type: seenDecimal ? "fraction" : "integer", value: num });
    else if (ch === group && parts.at(-1)?.type === "integer") parts.push({ type: "group", value: ch });
    else if (ch === decimal && parts.at(-1)?.type === "integer") {
      seenDecimal = true;
      parts.push({ type: "decimal", value: ch });
    } else if (ch === "-") parts.push({ type: "minusSign", value: ch });
    else if (ch === "+") parts.push({ type: "plusSign", value: ch });
    else if (ch === "%") parts.push({ type: "percentSign", value: ch });
    else if (/\s/u.test(ch)) parts.push({ type: "literal", value: ch });
    else if (parts.at(-1)?.type === "currency") parts.at(-1).value += ch;
    else parts.push({ type: /[()]/.test(ch) ? "literal" : "currency", value: ch });
  }
  return parts;
}

class NumberFormat {
  #locale;
  #o;
  constructor(locales, options = undefined) {
    const opts = options === undefined ? {} : Object(options);
    this.#locale = pickLocale(locales);
    const style = opts.style ?? "decimal";
    if (!["decimal", "percent", "currency", "unit"].includes(style)) {
      throw new RangeError(`Value ${style} out of range for Intl.NumberFormat options property style`);
    }
    const currency = opts.currency === undefined ? undefined : String(opts.currency).toUpperCase();
    if (style === "currency" && currency === undefined) {
      throw new TypeError("Currency code is required with currency style.");
    }
    const currencyDigits = ZERO_DIGIT_CURRENCIES.has(currency) ? 0 : 2;
    const notation = opts.notation ?? "standard";
    const [defMin, defMax] = style === "currency"
      ? [currencyDigits, currencyDigits]
      : style === "percent" ? [0, 0] : [0, 3];
    let minFD = integerOption(opts, "minimumFractionDigits", 0, 100, undefined);
    let maxFD = integerOption(opts, "maximumFractionDigits", 0, 100, undefined);
    if (minFD === undefined && maxFD === undefined) [minFD, maxFD] = [defMin, defMax];
    else if (minFD === undefined) minFD = Math.min(defMin, maxFD);
    else if (maxFD === undefined) maxFD = Math.max(minFD, defMax);
    else if (minFD > maxFD) throw new RangeError("maximumFractionDigits value is out of range.");
    const maxSig = integerOption(opts, "maximumSignificantDigits", 1, 21, undefined);
    const minSig = integerOption(opts, "minimumSignificantDigits", 1, 21, maxSig === undefined ? undefined : 1);
    const grouping = opts.useGrouping === undefined ? true : opts.useGrouping !== false && opts.useGrouping !== "false";
    this.#o = {
      style,
      currency,
      currencyDisplay: opts.currencyDisplay ?? "symbol",
      unit: opts.unit,
      unitDisplay: opts.unitDisplay ?? "short",
      notation,
      compactDisplay: opts.compactDisplay ?? "short",
      signDisplay: opts.signDisplay ?? "auto",
      minimumIntegerDigits: integerOption(opts, "minimumIntegerDigits", 1, 21, 1),
      minimumFractionDigits: minFD,
      maximumFractionDigits: maxFD,
      minimumSignificantDigits: minSig ?? (maxSig !== undefined ? 1 : undefined),
      maximumSignificantDigits: maxSig,
      useGrouping: grouping,
      currencySign: opts.currencySign ?? "standard",
    };
  }

  format = (value) => this.#format(value);

  #format(value) {
    const o = this.#o;
    const lang = language(this.#locale);
    const big = typeof value === "bigint" && o.notation === "standard" && o.style !== "percent" &&
      o.maximumSignificantDigits === undefined;
    let x = Number(value);
    if (Number.isNaN(x)) return "NaN";
    const negative = x < 0 || Object.is(x, -0);
    x = Math.abs(x);
    if (o.style === "percent") x *= 100;
    let exponent = "";
    if (o.notation === "scientific" || o.notation === "engineering") {
      let e = 0;
      if (x !== 0 && Number.isFinite(x)) {
        e = Math.floor(Math.log10(x));
        if (o.notation === "engineering") e -= ((e % 3) + 3) % 3;
        x = x / 10 ** e;
        if (o.notation === "scientific" && roundFraction(plainDigits(x), 0, o.maximumFractionDigits) === "10") {
          x /= 10;
          e += 1;
        }
      }
      exponent = `E${e}`;
    }
    let suffix = "";
    if (o.notation === "compact" && x >= 1000) {
      const units = o.compactDisplay === "long"
        ? [" thousand", " million", " billion", " trillion"]
        : ["K", "M", "B", "T"];
      let k = Math.min(Math.floor(Math.log10(x) / 3), 4);
      let scaled = x / 10 ** (3 * k);
      if (Math.round(scaled) >= 1000 && k < 4) {
        k++;
        scaled = x / 10 ** (3 * k);
      }
      x = scaled;
      suffix = units[k - 1];
    }
    let digits;
    if (big) {
      // Every digit of a BigInt, however many: Number(value) may be Infinity.
      digits = String(value < 0n ? -value : value);
      if (o.minimumFractionDigits > 0) digits += "." + "0".repeat(o.minimumFractionDigits);
    } else if (!Number.isFinite(x)) digits = "\u221e";
    else if (o.maximumSignificantDigits !== undefined) {
      digits = roundSignificant(x, o.maximumSignificantDigits, o.minimumSignificantDigits);
    } else if (o.notation === "compact") {
      digits = x < 100 ? roundSignificant(x, 2, 1) : roundFraction(plainDigits(x), 0, 0);
    } else {
      digits = roundFraction(plainDigits(x), o.minimumFractionDigits, o.maximumFractionDigits);
    }
    if (digits !== "\u221e") {
      const [int, frac] = digits.split(".");
      const padded = int.padStart(o.minimumIntegerDigits, "0");
      digits = frac === undefined ? padded : `${padded}.${frac}`;
      digits = op_gg_intl_format_decimal(this.#locale, digits, o.useGrouping && !exponent);
    }
    const isZero = /^[^1-9]*$/.test(digits);
    let sign = "";
    if (o.signDisplay === "always") sign = negative ? "-" : "+";
    else if (o.signDisplay === "exceptZero") sign = isZero ? "" : negative ? "-" : "+";
    else if (o.signDisplay === "never") sign = "";
    else if (o.signDisplay === "negative") sign = negative && !isZero ? "-" : "";
    else sign = negative ? "-" : "";
    let body = digits + exponent + suffix;
    if (o.style === "percent") body += SUFFIX_LANGUAGES.has(lang) ? `${NBSP}%` : "%";
    if (o.style === "unit" && o.unit) body = unitBody(body, o.unit, o.unitDisplay, x);
    if (o.style === "currency") {
      body = currencyBody(body, o, lang);
      if (o.currencySign === "accounting" && sign === "-") return `(${body})`;
    }
    return sign + body;
  }

  formatToParts(value) {
    return numberParts(this.format(value), this.#locale);
  }

  resolvedOptions() {
    const o = this.#o;
    const out = { locale: this.#locale, numberingSystem: "latn", style: o.style };
    if (o.currency) Object.assign(out, { currency: o.currency, currencyDisplay: o.currencyDisplay });
    return Object.assign(out, {
      minimumIntegerDigits: o.minimumIntegerDigits,
      minimumFractionDigits: o.minimumFractionDigits,
      maximumFractionDigits: o.maximumFractionDigits,
      useGrouping: o.useGrouping ? "auto" : false,
      notation: o.notation,
      signDisplay: o.signDisplay,
    });
  }

  static supportedLocalesOf(locales) {
    return (Array.isArray(locales) ? locales : locales === undefined ? [] : [locales]).map(String);
  }
}

class PluralRules {
  #locale;
  #type;
  constructor(locales, options = undefined) {
    this.#locale = pickLocale(locales);
    this.#type = options?.type ?? "cardinal";
  }
  select(n) {
    const x = Number(n);
    if (!Number.isFinite(x)) return "other";
    return op_gg_intl_plural(this.#locale, this.#type === "ordinal", plainDigits(x) === String(Math.abs(x)) ? String(x) : (x < 0 ? "-" : "") + plainDigits(x));
  }
  resolvedOptions() {
    return { locale: this.#locale, type: this.#type };
  }
  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}

// Dates: English month and weekday names, UTC.
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const pad2 = (n) => String(n).padStart(2, "0");

class DateTimeFormat {
  #locale;
  #o;
  constructor(locales, options = undefined, defaults = "date") {
    this.#locale = pickLocale(locales);
    const opts = options === undefined ? {} : Object(options);
    const zone = opts.timeZone === undefined ? "UTC" : String(opts.timeZone);
    if (!/^(UTC|GMT|Etc\/UTC|Etc\/GMT)$/i.test(zone)) {
      throw new RangeError(
        `Invalid time zone specified: ${zone} (gg's isolates know only UTC; format in UTC, or shift the Date yourself)`,
      );
    }
    const o = {};
    for (const k of ["weekday", "era", "year", "month", "day", "hour", "minute", "second", "timeZoneName", "dateStyle", "timeStyle", "fractionalSecondDigits"]) {
      if (opts[k] !== undefined) o[k] = opts[k];
    }
    o.hour12 = opts.hour12 ?? (opts.hourCycle ? opts.hourCycle === "h12" || opts.hourCycle === "h11" : undefined);
    const anyField = ["weekday", "year", "month", "day", "hour", "minute", "second", "dateStyle", "timeStyle", "fractionalSecondDigits"].some((k) => o[k] !== undefined);
    if (!anyField) {
      if (defaults === "date" || defaults === "all") Object.assign(o, { year: "numeric", month: "numeric", day: "numeric" });
      if (defaults === "time" || defaults === "all") Object.assign(o, { hour: "numeric", minute: "2-digit", second: "2-digit" });
    }
    this.#o = o;
  }

  format = (date) => this.#format(date);

  #format(date) {
    const d = date === undefined ? new Date() : new Date(typeof date === "object" ? date.valueOf() : date);
    if (Number.isNaN(d.getTime())) throw new RangeError("Invalid time value");
    const o = { ...this.#o };
    const lang = language(this.#locale);
    const region = this.#locale.split("-")[1]?.toUpperCase();
    if (o.dateStyle) {
      const styles = { full: { weekday: "long", month: "long", day: "numeric", year: "numeric" }, long: { month: "long", day: "numeric", year: "numeric" }, medium: { month: "short", day: "numeric", year: "numeric" }, short: { month: "numeric", day: "numeric", year: "2-digit" } };
      Object.assign(o, styles[o.dateStyle]);
    }
    if (o.timeStyle) {
      Object.assign(o, { hour: "numeric", minute: "2-digit" }, o.timeStyle === "short" ? {} : { second: "2-digit" });
      if (o.timeStyle === "long") o.timeZoneName = "short";
      if (o.timeStyle === "full") o.timeZoneName = "long";
    }
    const Y = d.getUTCFullYear(), M = d.getUTCMonth(), D = d.getUTCDate(), W = d.getUTCDay();
    const h = d.getUTCHours(), m = d.getUTCMinutes(), s = d.getUTCSeconds();
    const iso = lang === "sv" || this.#locale === "en-CA";
    const dayFirst = lang !== "en" || (region !== undefined && region !== "US" && region !== "CA" && region !== "PH");
    const h12 = o.hour12 ?? (lang === "en" && (region === undefined || region === "US" || region === "CA" || region === "AU" || region === "IN" || region === "PH" || region === "NZ"));

    const year = o.year === "2-digit" ? pad2(Y % 100) : o.year ? String(Y) : "";
    const month = o.month === "long" ? MONTHS[M] : o.month === "short" ? MONTHS[M].slice(0, 3) : o.month === "narrow" ? MONTHS[M][0] : o.month === "2-digit" ? pad2(M + 1) : o.month ? String(M + 1) : "";
    const day = o.day === "2-digit" ? pad2(D) : o.day ? String(D) : "";
    const weekday = o.weekday === "long" ? WEEKDAYS[W] : o.weekday === "short" ? WEEKDAYS[W].slice(0, 3) : o.weekday === "narrow" ? WEEKDAYS[W][0] : "";
    const textMonth = o.month === "long" || o.month === "short" || o.month === "narrow";

    let datePart = "";
    if (iso && !textMonth) {
      datePart = [year, o.month ? pad2(M + 1) : "", o.day ? pad2(D) : ""].filter(Boolean).join("-");
    } else if (textMonth) {
      if (dayFirst) datePart = [day, month, year].filter(Boolean).join(" ");
      else {
        const md = [month, day].filter(Boolean).join(" ");
        datePart = year ? (day ? `${md}, ${year}` : `${md} ${year}`) : md;
      }
    } else if (month || day || year) {
      const parts = dayFirst
        ? [o.day ? (lang === "en" ? pad2(D) : day) : "", o.month ? (lang === "en" ? pad2(M + 1) : month) : "", year]
        : [month, day, year];
      datePart = parts.filter(Boolean).join(lang === "de" ? "." : "/");
    }
    if (weekday) datePart = datePart ? `${weekday}, ${datePart}` : weekday;

    let timePart = "";
    if (o.hour || o.minute || o.second) {
      let hour = h;
      let period = "";
      if (o.hour && h12) {
        period = h < 12 ? "AM" : "PM";
        hour = h % 12 === 0 ? 12 : h % 12;
      }
      const fields = [];
      if (o.hour) fields.push(o.hour === "2-digit" || (!h12 && (o.minute || iso || lang !== "en")) ? pad2(hour) : String(hour));
      if (o.minute) fields.push(o.hour ? pad2(m) : String(m));
      if (o.second) fields.push(o.minute ? pad2(s) : String(s));
      timePart = fields.join(":");
      if (o.fractionalSecondDigits) timePart += "." + String(d.getUTCMilliseconds()).padStart(3, "0").slice(0, o.fractionalSecondDigits);
      if (period) timePart += ` ${period}`;
      if (o.timeZoneName) timePart += o.timeZoneName === "long" ? " Coordinated Universal Time" : " UTC";
    }
    if (datePart && timePart) return `${datePart}${iso ? " " : ", "}${timePart}`;
    return datePart || timePart;
  }

  formatToParts(date) {
    return [{ type: "literal", value: this.format(date) }];
  }

  resolvedOptions() {
    return { locale: this.#locale, calendar: "gregory", numberingSystem: "latn", timeZone: "UTC", ...this.#o };
  }

  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}

// Relative times, in English.
const RELATIVE_AUTO = {
  day: { "-1": "yesterday", "0": "today", "1": "tomorrow" },
  year: { "-1": "last year", "0": "this year", "1": "next year" },
  month: { "-1": "last month", "0": "this month", "1": "next month" },
  week: { "-1": "last week", "0": "this week", "1": "next week" },
  quarter: { "-1": "last quarter", "0": "this quarter", "1": "next quarter" },
  hour: { "0": "this hour" },
  minute: { "0": "this minute" },
  second: { "0": "now" },
};
class RelativeTimeFormat {
  #locale;
  #numeric;
  constructor(locales, options = undefined) {
    this.#locale = pickLocale(locales);
    this.#numeric = options?.numeric ?? "always";
  }
  format(value, unit) {
    const x = Number(value);
    let u = String(unit);
    if (u.endsWith("s")) u = u.slice(0, -1);
    if (!["second", "minute", "hour", "day", "week", "month", "quarter", "year"].includes(u)) {
      throw new RangeError(`Invalid unit argument for format() '${unit}'`);
    }
    if (this.#numeric === "auto") {
      const word = RELATIVE_AUTO[u]?.[String(x)];
      if (word) return word;
    }
    const n = new NumberFormat(this.#locale).format(Math.abs(x));
    const label = Math.abs(x) === 1 ? u : `${u}s`;
    return x < 0 || Object.is(x, -0) ? `${n} ${label} ago` : `in ${n} ${label}`;
  }
  resolvedOptions() {
    return { locale: this.#locale, style: "long", numeric: this.#numeric, numberingSystem: "latn" };
  }
}

const Intl = Object.create(Object.getPrototypeOf(NativeIntl));
for (const name of Object.getOwnPropertyNames(NativeIntl)) {
  Object.defineProperty(Intl, name, Object.getOwnPropertyDescriptor(NativeIntl, name));
}
for (const [name, value] of [
  ["NumberFormat", NumberFormat],
  ["PluralRules", PluralRules],
  ["DateTimeFormat", DateTimeFormat],
  ["RelativeTimeFormat", RelativeTimeFormat],
]) {
  Object.defineProperty(Intl, name, { value, writable: true, configurable: true, enumerable: false });
}
Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
Object.defineProperty(globalThis, "Intl", { value: Intl, writable: true, configurable: true, enumerable: false });

function method(proto, name, fn) {
  Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
}
method(Number.prototype, "toLocaleString", function toLocaleString(locales, options) {
  return new NumberFormat(locales, options).format(Number.prototype.valueOf.call(this));
});
method(BigInt.prototype, "toLocaleString", function toLocaleString(locales, options) {
  return new NumberFormat(locales, options).format(BigInt.prototype.valueOf.call(this));
});
method(Date.prototype, "toLocaleDateString", function toLocaleDateString(locales, options) {
  return new DateTimeFormat(locales, options, "date").format(this);
});
method(Date.prototype, "toLocaleTimeString", function toLocaleTimeString(locales, options) {
  return new DateTimeFormat(locales, options, "time").format(this);
});
method(Date.prototype, "toLocaleString", function toLocaleString(locales, options) {
  return new DateTimeFormat(locales, options, "all").format(this);
});
