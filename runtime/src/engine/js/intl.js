// Intl.NumberFormat, Intl.PluralRules, Intl.DateTimeFormat and the
// toLocaleString family. QuickJS's own ignore the locale and most options;
// these follow V8's output for the common cases models write: grouping and
// decimal separators for any locale (ICU4X data, host-side), currency,
// percent, compact and fraction-digit options, plural categories; dates in
// any locale and IANA time zone (ICU4X and jiff, host-side). The ECMA-402
// option handling is hand-written: no library offers it inside this isolate.
import {
  op_gg_intl_change_case,
  op_gg_intl_compare,
  op_gg_intl_datetime_format,
  op_gg_intl_datetime_format_range,
  op_gg_intl_display_name,
  op_gg_intl_format_decimal,
  op_gg_intl_locale,
  op_gg_intl_plural,
  op_gg_intl_relative_time,
  op_gg_intl_segment,
  op_gg_intl_time_zone,
} from "ext:core/ops";

const NBSP = "\u00a0";
const NativeIntl = globalThis.Intl;

function pickLocale(locales) {
  const first = Array.isArray(locales) ? locales[0] : locales;
  if (first === undefined) return "en-US";
  const tag = typeof first === "string" ? op_gg_intl_locale(first) : "";
  if (tag === "") {
    if (typeof first === "string") throw new RangeError(`Invalid language tag: ${first}`);
    throw new RangeError(`Incorrect locale information provided`);
  }
  return tag;
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

// Dates: ICU4X's datetime formatter (host-side, any locale) in any IANA
// time zone. The isolate's own local time zone stays UTC; only an explicit
// timeZone option moves the wall clock.
function stringOption(opts, name, allowed, ctor = "DateTimeFormat") {
  const value = opts[name];
  if (value === undefined) return undefined;
  const s = String(value);
  if (!allowed.includes(s)) {
    throw new RangeError(`Value ${s} out of range for Intl.${ctor} options property ${name}`);
  }
  return s;
}

const STYLES = ["full", "long", "medium", "short"];
const TEXT = ["narrow", "short", "long"];
const NUMERIC = ["numeric", "2-digit"];
const COMPONENTS = [
  ["weekday", TEXT, { narrow: "EEEEE", short: "E", long: "EEEE" }],
  ["era", TEXT, { narrow: "GGGGG", short: "G", long: "GGGG" }],
  ["year", NUMERIC, { numeric: "y", "2-digit": "yy" }],
  ["month", [...NUMERIC, ...TEXT], { numeric: "M", "2-digit": "MM", narrow: "MMMMM", short: "MMM", long: "MMMM" }],
  ["day", NUMERIC, { numeric: "d", "2-digit": "dd" }],
  ["dayPeriod", TEXT, { narrow: "BBBBB", short: "B", long: "BBBB" }],
  ["hour", NUMERIC, { numeric: "j", "2-digit": "jj" }],
  ["minute", NUMERIC, { numeric: "m", "2-digit": "mm" }],
  ["second", NUMERIC, { numeric: "s", "2-digit": "ss" }],
  ["fractionalSecondDigits", null, null],
  ["timeZoneName", ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"], {
    short: "z", long: "zzzz", shortOffset: "O", longOffset: "OOOO", shortGeneric: "v", longGeneric: "vvvv",
  }],
];

function dateValue(date) {
  const x = date === undefined ? Date.now() : Number(date instanceof Date ? date.valueOf() : date);
  if (!Number.isFinite(x) || Math.abs(x) > 8.64e15) throw new RangeError("Invalid time value");
  return Math.trunc(x) + 0;
}

class DateTimeFormat {
  #locale;
  #zone;
  #hourCycle;
  #o;
  #skeleton;
  #bound;
  constructor(locales, options = undefined, required = "any", defaults = "date") {
    this.#locale = pickLocale(locales);
    const opts = options === undefined ? {} : Object(options);
    const hour12 = opts.hour12 === undefined ? undefined : Boolean(opts.hour12);
    let hourCycle = stringOption(opts, "hourCycle", ["h11", "h12", "h23", "h24"]);
    if (hour12 !== undefined) hourCycle = hour12 ? "h12" : "h23";
    const zoneName = opts.timeZone === undefined ? "UTC" : String(opts.timeZone);
    const zone = op_gg_intl_time_zone(zoneName);
    if (zone === "") throw new RangeError(`Invalid time zone specified: ${zoneName}`);
    this.#zone = zone;
    const o = {};
    for (const [name, allowed] of COMPONENTS) {
      if (name === "fractionalSecondDigits") {
        if (opts[name] !== undefined) {
          const n = Math.floor(Number(opts[name]));
          if (!(n >= 1 && n <= 3)) throw new RangeError(`fractionalSecondDigits value is out of range.`);
          o[name] = n;
        }
      } else {
        const value = stringOption(opts, name, allowed);
        if (value !== undefined) o[name] = value;
      }
    }
    const dateStyle = stringOption(opts, "dateStyle", STYLES);
    const timeStyle = stringOption(opts, "timeStyle", STYLES);
    if (dateStyle !== undefined || timeStyle !== undefined) {
      if (Object.keys(o).some((k) => k !== "timeZoneName")) throw new TypeError("Invalid option : option");
      if (required === "date" && timeStyle !== undefined) throw new TypeError("Invalid option : timeStyle");
      if (required === "time" && dateStyle !== undefined) throw new TypeError("Invalid option : dateStyle");
      if (dateStyle !== undefined) o.dateStyle = dateStyle;
      if (timeStyle !== undefined) o.timeStyle = timeStyle;
    } else {
      let needDefaults = true;
      if ((required === "date" || required === "any") && ["weekday", "year", "month", "day"].some((k) => o[k] !== undefined)) {
        needDefaults = false;
      }
      if ((required === "time" || required === "any") &&
        ["dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"].some((k) => o[k] !== undefined)) {
        needDefaults = false;
      }
      if (needDefaults && (defaults === "date" || defaults === "all")) {
        Object.assign(o, { year: "numeric", month: "numeric", day: "numeric" });
      }
      if (needDefaults && (defaults === "time" || defaults === "all")) {
        Object.assign(o, { hour: "numeric", minute: "numeric", second: "numeric" });
      }
    }
    const ordered = {};
    for (const [name] of COMPONENTS) if (o[name] !== undefined) ordered[name] = o[name];
    if (o.dateStyle) ordered.dateStyle = o.dateStyle;
    if (o.timeStyle) ordered.timeStyle = o.timeStyle;
    this.#o = ordered;
    let skeleton = "";
    for (const [name, , chars] of COMPONENTS) {
      if (ordered[name] === undefined) continue;
      skeleton += chars === null ? "S".repeat(ordered[name]) : chars[ordered[name]];
    }
    this.#skeleton = skeleton;
    this.#hourCycle = ordered.hour !== undefined || ordered.timeStyle !== undefined ? (hourCycle ?? "") : "";
    // Options ICU4X cannot format fail now, as V8's would.
    this.#parts(0);
  }

  #parts(date, zone = this.#zone) {
    const o = this.#o;
    const json = op_gg_intl_datetime_format(
      this.#locale, this.#skeleton, o.dateStyle ?? "", o.timeStyle ?? "", this.#hourCycle, zone, dateValue(date),
    );
    if (json === "") throw new RangeError("Invalid time value");
    const parts = JSON.parse(json);
    for (const p of parts) {
      // V8's ICU data has a plain space where CLDR has U+202F (before AM/PM).
      if (p[0] === "literal") p[1] = p[1].replaceAll("\u202f", " ");
    }
    if (o.dateStyle !== undefined || o.timeStyle !== undefined) return parts;
    // ICU4X fills in fields the options left out (an hour before minutes and
    // seconds, a day between month and weekday); V8 shows only those asked.
    const asked = (type) => type === "literal" || type === "era" || type === "fractionalSecond" ||
      (type === "dayPeriod" ? o.hour !== undefined || o.dayPeriod !== undefined : o[type] !== undefined);
    let dropped = false;
    for (let i = 0; i < parts.length; i++) {
      if (asked(parts[i][0])) continue;
      if (parts[i + 1]?.[0] === "literal") parts.splice(i, 2);
      else if (parts[i - 1]?.[0] === "literal") parts.splice(i - 1, 2);
      else parts.splice(i, 1);
      dropped = true;
      i = -1;
    }
    if (dropped) {
      while (parts[0]?.[0] === "literal") parts.shift();
      while (parts.at(-1)?.[0] === "literal") parts.pop();
    }
    // Time widths as V8's pattern generator leaves them: a numeric hour
    // before 2-digit minutes (and seconds, if any) loses its padding
    // (`9:07`, where the locale's pattern is `HH:mm`), and a lone numeric
    // second has none. The date's widths come from CLDR's pattern host-side.
    // A clock other than the locale's own keeps the padding (V8 rewrites
    // the pattern's hour letters then).
    // A 12-hour clock's numeric hour is never padded (`9 a.m.`).
    const twelve = (hc) => hc === "h11" || hc === "h12";
    const ownClock = this.#hourCycle === "" || twelve(this.#hourCycle) === twelve(this.#localeHourCycle());
    const unpadHour = o.hour === "numeric" && (
      (ownClock && o.minute === "2-digit" && (o.second === undefined || o.second === "2-digit")) ||
      twelve(this.#hourCycle === "" ? this.#localeHourCycle() : this.#hourCycle)
    );
    for (const p of parts) {
      const want = o[p[0]];
      if (!/^[0-9]+$/.test(p[1])) continue;
      if (want === "2-digit") p[1] = p[1].padStart(2, "0");
      else if ((p[0] === "hour" && unpadHour) || (p[0] === "second" && want === "numeric" && o.minute === undefined)) {
        p[1] = String(Number(p[1]));
      }
    }
    return parts;
  }

  // The locale's own clock: a 12-hour one names the afternoon.
  #localeHourCycle() {
    const afternoon = op_gg_intl_datetime_format(this.#locale, "j", "", "", "", "UTC", 13 * 3600000);
    return afternoon.includes("dayPeriod") ? "h12" : "h23";
  }

  get format() {
    this.#bound ??= (date) => this.#parts(date).map((p) => p[1]).join("");
    return this.#bound;
  }

  formatToParts(date) {
    return this.#parts(date).map(([type, value]) => ({ type, value }));
  }

  formatRange(start, end) {
    if (start === undefined || end === undefined) throw new TypeError("startDate and endDate are required");
    const o = this.#o;
    const text = op_gg_intl_datetime_format_range(
      this.#locale, this.#skeleton, o.dateStyle ?? "", o.timeStyle ?? "", this.#hourCycle, this.#zone,
      dateValue(start), dateValue(end),
    );
    if (text === "") throw new RangeError("Invalid time value");
    return text.replaceAll("\u202f", " ");
  }

  resolvedOptions() {
    const out = {
      locale: this.#locale,
      calendar: "gregory",
      numberingSystem: "latn",
      timeZone: this.#zone,
    };
    const o = { ...this.#o };
    if (o.hour !== undefined || o.timeStyle !== undefined) {
      const hc = this.#hourCycle === "" ? this.#localeHourCycle() : this.#hourCycle;
      out.hourCycle = hc;
      out.hour12 = hc === "h11" || hc === "h12";
    }
    if (o.hour !== undefined) {
      // The width the locale's pattern gives the hour (01 or 1 at 1 AM).
      const hour = this.#parts(3600000, "UTC").find((p) => p[0] === "hour");
      if (hour !== undefined && /^0[0-9]$/.test(hour[1])) o.hour = "2-digit";
    }
    if (o.hour !== undefined && o.minute !== undefined) o.minute = "2-digit";
    if (o.minute !== undefined && o.second !== undefined) o.second = "2-digit";
    return Object.assign(out, o);
  }

  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}

// Intl.DateTimeFormat may be called without `new`.
function DateTimeFormatConstructor(locales, options) {
  return new DateTimeFormat(locales, options);
}
Object.defineProperty(DateTimeFormatConstructor, "name", { value: "DateTimeFormat" });
DateTimeFormatConstructor.prototype = DateTimeFormat.prototype;
Object.defineProperty(DateTimeFormat.prototype, "constructor", { value: DateTimeFormatConstructor, writable: true, configurable: true });
Object.defineProperty(DateTimeFormat.prototype, Symbol.toStringTag, { value: "Intl.DateTimeFormat", configurable: true });
DateTimeFormatConstructor.supportedLocalesOf = DateTimeFormat.supportedLocalesOf;

// Relative times: ICU4X's relative time formatter (host-side).
const RELATIVE_UNITS = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"];
const WIDTHS = ["narrow", "short", "long"];
class RelativeTimeFormat {
  #locale;
  #style;
  #numeric;
  constructor(locales, options = undefined) {
    this.#locale = pickLocale(locales);
    const opts = options === undefined ? {} : Object(options);
    this.#style = stringOption(opts, "style", WIDTHS, "RelativeTimeFormat") ?? "long";
    this.#numeric = stringOption(opts, "numeric", ["always", "auto"], "RelativeTimeFormat") ?? "always";
  }
  format(value, unit) {
    const x = Number(value);
    let u = String(unit);
    if (u.endsWith("s")) u = u.slice(0, -1);
    const index = RELATIVE_UNITS.indexOf(u);
    if (index < 0) throw new RangeError(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '${unit}'`);
    if (!Number.isFinite(x)) throw new RangeError("Invalid time value");
    // -0 is "0 minutes ago", but with numeric "auto" it is "this minute".
    const negative = x < 0 || (Object.is(x, -0) && this.#numeric === "always");
    const digits = (negative ? "-" : "") + roundFraction(plainDigits(Math.abs(x)), 0, 3);
    const text = op_gg_intl_relative_time(
      this.#locale, WIDTHS.indexOf(this.#style), index, this.#numeric === "auto", digits,
    );
    if (text === "") throw new RangeError(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '${unit}'`);
    return text;
  }
  formatToParts(value, unit) {
    return [{ type: "literal", value: this.format(value, unit) }];
  }
  resolvedOptions() {
    return { locale: this.#locale, style: this.#style, numeric: this.#numeric, numberingSystem: "latn" };
  }
  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}
Object.defineProperty(RelativeTimeFormat.prototype, Symbol.toStringTag, { value: "Intl.RelativeTimeFormat", configurable: true });

// Display names: ICU4X's locale display names (host-side) for languages,
// regions and scripts; other types echo the code.
const DISPLAY_TYPES = ["language", "region", "script", "currency", "calendar", "dateTimeField"];
class DisplayNames {
  #locale;
  #o;
  constructor(locales, options) {
    this.#locale = pickLocale(locales);
    if (options === undefined) throw new TypeError("invalid_argument");
    const opts = Object(options);
    const style = stringOption(opts, "style", WIDTHS, "DisplayNames") ?? "long";
    const type = stringOption(opts, "type", DISPLAY_TYPES, "DisplayNames");
    if (type === undefined) throw new TypeError("invalid_argument");
    const fallback = stringOption(opts, "fallback", ["code", "none"], "DisplayNames") ?? "code";
    const languageDisplay = stringOption(opts, "languageDisplay", ["dialect", "standard"], "DisplayNames") ?? "dialect";
    this.#o = { style, type, fallback };
    if (type === "language") this.#o.languageDisplay = languageDisplay;
  }
  of(code) {
    const o = this.#o;
    const s = String(code);
    const kind = ["language", "region", "script"].indexOf(o.type);
    if (kind < 0) return o.fallback === "code" ? s : undefined;
    const name = op_gg_intl_display_name(this.#locale, kind, WIDTHS.indexOf(o.style), s);
    if (name === "") throw new RangeError("invalid_argument");
    if (name !== "\u0000") return name;
    if (o.fallback === "none") return undefined;
    if (o.type === "region") return s.toUpperCase();
    if (o.type === "script") return s[0].toUpperCase() + s.slice(1).toLowerCase();
    return op_gg_intl_locale(s) || s;
  }
  resolvedOptions() {
    return { locale: this.#locale, ...this.#o };
  }
  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}
Object.defineProperty(DisplayNames.prototype, Symbol.toStringTag, { value: "Intl.DisplayNames", configurable: true });

// Collation: ICU4X's collator (host-side) with the locale's tailoring.
// The longest string a comparison takes, in UTF-16 code units: the host's
// collator runs to its end once started (two strings this long take it
// about 0.1 s), so longer ones are refused rather than held past the
// program's time limit.
const MAX_COLLATED = 2 ** 21;
const SENSITIVITIES = ["base", "accent", "case", "variant"];
const CASE_FIRST = ["", "upper", "lower", "false"];
class Collator {
  #locale;
  #o;
  #codes;
  #bound;
  constructor(locales, options = undefined) {
    this.#locale = pickLocale(locales);
    const opts = options === undefined ? {} : Object(options);
    const usage = stringOption(opts, "usage", ["sort", "search"], "Collator") ?? "sort";
    const numeric = opts.numeric === undefined ? false : Boolean(opts.numeric);
    const caseFirst = stringOption(opts, "caseFirst", ["upper", "lower", "false"], "Collator") ?? "false";
    const sensitivity = stringOption(opts, "sensitivity", SENSITIVITIES, "Collator") ?? "variant";
    const ignorePunctuation = opts.ignorePunctuation === undefined ? false : Boolean(opts.ignorePunctuation);
    this.#o = { usage, sensitivity, ignorePunctuation, collation: "default", numeric, caseFirst };
    this.#codes = [SENSITIVITIES.indexOf(sensitivity), numeric, opts.caseFirst === undefined ? 0 : CASE_FIRST.indexOf(caseFirst), ignorePunctuation];
  }
  get compare() {
    const [sensitivity, numeric, caseFirst, ignorePunctuation] = this.#codes;
    const locale = this.#locale;
    this.#bound ??= (a, b) => {
      const x = String(a);
      const y = String(b);
      if (x.length > MAX_COLLATED || y.length > MAX_COLLATED) {
        throw new RangeError(
          `Intl.Collator and localeCompare compare strings of at most ${MAX_COLLATED} UTF-16 code units ` +
            `(this one has ${Math.max(x.length, y.length)}); compare slices of them instead`,
        );
      }
      return op_gg_intl_compare(locale, sensitivity, numeric, caseFirst, ignorePunctuation, x, y);
    };
    return this.#bound;
  }
  resolvedOptions() {
    return { locale: this.#locale, ...this.#o };
  }
  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}
Object.defineProperty(Collator.prototype, Symbol.toStringTag, { value: "Intl.Collator", configurable: true });

// Segmentation: ICU4X's UAX #29 segmenters (host-side), computed whole per
// segment() call.
const GRANULARITIES = ["grapheme", "word", "sentence"];
class Segmenter {
  #locale;
  #granularity;
  constructor(locales, options = undefined) {
    this.#locale = pickLocale(locales);
    const opts = options === undefined ? {} : Object(options);
    this.#granularity = stringOption(opts, "granularity", GRANULARITIES, "Segmenter") ?? "grapheme";
  }
  segment(input) {
    const text = String(input);
    const granularity = this.#granularity;
    const json = op_gg_intl_segment(text, GRANULARITIES.indexOf(granularity));
    if (json === "") throw new RangeError("Intl.Segmenter input is too long");
    const ends = JSON.parse(json);
    const word = granularity === "word";
    const data = (i) => {
      const index = i === 0 ? 0 : ends[i - 1][0];
      const out = { segment: text.slice(index, ends[i][0]), index, input: text };
      if (word) out.isWordLike = ends[i][1] === 1;
      return out;
    };
    return {
      containing(at = 0) {
        const n = Math.trunc(Number(at)) || 0;
        if (n < 0 || n >= text.length) return undefined;
        let lo = 0;
        let hi = ends.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (ends[mid][0] <= n) lo = mid + 1;
          else hi = mid;
        }
        return data(lo);
      },
      *[Symbol.iterator]() {
        for (let i = 0; i < ends.length; i++) yield data(i);
      },
    };
  }
  resolvedOptions() {
    return { locale: this.#locale, granularity: this.#granularity };
  }
  static supportedLocalesOf(locales) {
    return NumberFormat.supportedLocalesOf(locales);
  }
}
Object.defineProperty(Segmenter.prototype, Symbol.toStringTag, { value: "Intl.Segmenter", configurable: true });

const Intl = Object.create(Object.getPrototypeOf(NativeIntl));
for (const name of Object.getOwnPropertyNames(NativeIntl)) {
  Object.defineProperty(Intl, name, Object.getOwnPropertyDescriptor(NativeIntl, name));
}
for (const [name, value] of [
  ["NumberFormat", NumberFormat],
  ["PluralRules", PluralRules],
  ["DateTimeFormat", DateTimeFormatConstructor],
  ["RelativeTimeFormat", RelativeTimeFormat],
  ["Collator", Collator],
  ["DisplayNames", DisplayNames],
  ["Segmenter", Segmenter],
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
const invalidDate = (date) => Number.isNaN(Date.prototype.valueOf.call(date));
method(Date.prototype, "toLocaleDateString", function toLocaleDateString(locales, options) {
  if (invalidDate(this)) return "Invalid Date";
  return new DateTimeFormat(locales, options, "date", "date").format(this);
});
method(Date.prototype, "toLocaleTimeString", function toLocaleTimeString(locales, options) {
  if (invalidDate(this)) return "Invalid Date";
  return new DateTimeFormat(locales, options, "time", "time").format(this);
});
method(Date.prototype, "toLocaleString", function toLocaleString(locales, options) {
  if (invalidDate(this)) return "Invalid Date";
  return new DateTimeFormat(locales, options, "any", "all").format(this);
});

let defaultCollator;
method(String.prototype, "localeCompare", function localeCompare(that, locales, options) {
  if (this === undefined || this === null) throw new TypeError("String.prototype.localeCompare called on null or undefined");
  const collator = locales === undefined && options === undefined
    ? (defaultCollator ??= new Collator())
    : new Collator(locales, options);
  return collator.compare(String(this), String(that));
});
function caseLocale(locales) {
  const list = Array.isArray(locales) ? locales : locales === undefined ? [] : [locales];
  return list.length === 0 ? "en-US" : pickLocale(list);
}
method(String.prototype, "toLocaleLowerCase", function toLocaleLowerCase(locales) {
  if (this === undefined || this === null) throw new TypeError("String.prototype.toLocaleLowerCase called on null or undefined");
  return op_gg_intl_change_case(caseLocale(locales), String(this), false);
});
method(String.prototype, "toLocaleUpperCase", function toLocaleUpperCase(locales) {
  if (this === undefined || this === null) throw new TypeError("String.prototype.toLocaleUpperCase called on null or undefined");
  return op_gg_intl_change_case(caseLocale(locales), String(this), true);
});
