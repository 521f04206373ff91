use super::quickjs_sys::*;
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::sync::OnceLock;
use temporal_rs::{Instant, TimeZone};
use timezone_provider::zoneinfo64::ZoneInfo64TzdbProvider;

fn provider() -> &'static ZoneInfo64TzdbProvider<'static> {
  static PROVIDER: OnceLock<ZoneInfo64TzdbProvider<'static>> = OnceLock::new();
  PROVIDER.get_or_init(|| {
    ZoneInfo64TzdbProvider::zoneinfo64_provider_for_testing()
      .expect("bundled zoneinfo64 data is invalid")
  })
}

unsafe fn value_to_string(
  ctx: *mut JSContext,
  value: JSValue,
) -> Option<String> {
  let mut len = 0usize;
  let ptr = unsafe { JS_ToCStringLen(ctx, &mut len, value) };
  if ptr.is_null() {
    return None;
  }
  let text = unsafe {
    super::string::utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len))
      .into_owned()
  };
  unsafe { JS_FreeCString(ctx, ptr) };
  Some(text)
}

unsafe fn set_i32(
  ctx: *mut JSContext,
  object: JSValue,
  name: &std::ffi::CStr,
  value: i32,
) {
  unsafe {
    JS_SetPropertyStr(ctx, object, name.as_ptr(), JS_NewInt32(ctx, value));
  }
}

unsafe fn set_string(
  ctx: *mut JSContext,
  object: JSValue,
  name: &std::ffi::CStr,
  value: &str,
) {
  unsafe {
    JS_SetPropertyStr(
      ctx,
      object,
      name.as_ptr(),
      JS_NewStringLen(ctx, value.as_ptr() as *const c_char, value.len()),
    );
  }
}

unsafe fn throw_range_error(ctx: *mut JSContext, message: &str) -> JSValue {
  let message = CString::new(message).unwrap_or_default();
  unsafe { JS_ThrowRangeError(ctx, c"%s".as_ptr(), message.as_ptr()) }
}

unsafe extern "C" fn format_time_zone(
  ctx: *mut JSContext,
  _this: JSValue,
  argc: c_int,
  argv: *mut JSValue,
) -> JSValue {
  if argc < 2 || argv.is_null() {
    return unsafe {
      JS_ThrowTypeError(
        ctx,
        c"epoch milliseconds and time zone are required".as_ptr(),
      )
    };
  }

  let mut milliseconds = 0.0;
  if unsafe { JS_ToFloat64(ctx, &mut milliseconds, *argv) } < 0 {
    return jsv_exception();
  }
  if !milliseconds.is_finite()
    || milliseconds < i64::MIN as f64
    || milliseconds > i64::MAX as f64
  {
    return unsafe { throw_range_error(ctx, "invalid epoch milliseconds") };
  }
  let Some(identifier) = (unsafe { value_to_string(ctx, *argv.add(1)) }) else {
    return jsv_exception();
  };

  let provider = provider();
  let Ok(time_zone) =
    TimeZone::try_from_identifier_str_with_provider(&identifier, provider)
  else {
    return unsafe {
      throw_range_error(ctx, &format!("invalid time zone: {identifier}"))
    };
  };
  let Ok(primary_time_zone) =
    time_zone.primary_identifier_with_provider(provider)
  else {
    return unsafe {
      throw_range_error(ctx, &format!("invalid time zone: {identifier}"))
    };
  };
  let Ok(canonical_identifier) =
    primary_time_zone.identifier_with_provider(provider)
  else {
    return unsafe {
      throw_range_error(ctx, &format!("invalid time zone: {identifier}"))
    };
  };
  let Ok(instant) =
    Instant::from_epoch_milliseconds(milliseconds.trunc() as i64)
  else {
    return unsafe {
      throw_range_error(ctx, "epoch milliseconds out of range")
    };
  };
  let Ok(zoned) =
    instant.to_zoned_date_time_iso_with_provider(time_zone, provider)
  else {
    return unsafe {
      throw_range_error(ctx, &format!("invalid time zone: {identifier}"))
    };
  };

  let object = unsafe { JS_NewObject(ctx) };
  unsafe {
    set_string(ctx, object, c"timeZone", &canonical_identifier);
    set_string(
      ctx,
      object,
      c"era",
      if zoned.year() <= 0 { "BC" } else { "AD" },
    );
    set_i32(ctx, object, c"year", zoned.year());
    set_i32(ctx, object, c"month", i32::from(zoned.month()));
    set_i32(ctx, object, c"day", i32::from(zoned.day()));
    set_i32(ctx, object, c"hour", i32::from(zoned.hour()));
    set_i32(ctx, object, c"minute", i32::from(zoned.minute()));
    set_i32(ctx, object, c"second", i32::from(zoned.second()));
    JS_SetPropertyStr(
      ctx,
      object,
      c"offsetNanoseconds".as_ptr(),
      JS_NewInt64(ctx, zoned.offset_nanoseconds()),
    );
  }
  object
}

pub(crate) unsafe fn install_host_functions(
  ctx: *mut JSContext,
  global: JSValue,
) {
  let function = unsafe {
    JS_NewCFunction(ctx, format_time_zone, c"__v8xTemporalTimeZone".as_ptr(), 2)
  };
  unsafe {
    super::core::define_internal_global(
      ctx,
      global,
      c"__v8xTemporalTimeZone",
      function,
    );
  }
}

/// Evaluates a built-in script from bytecode, compiling it on first use
/// (gg patch: the per-context shims are parsed once per process, not once
/// per context). The bytecode goes through the engine's bytecode cache, so
/// a blob embedded at build time carries it too and a process's first
/// context reads it instead of parsing it.
pub(crate) unsafe fn eval_cached_script(
  ctx: *mut JSContext,
  source: &[u8],
  filename: &std::ffi::CStr,
) -> JSValue {
  let key = super::module::script_bc_key(
    BUILT_IN_SCRIPT_KEY_FLAGS,
    source,
    filename.to_bytes(),
  );
  if let Some(bytes) = super::module::bc_load(key) {
    let function = super::module::read_cached_bytecode(ctx, &bytes);
    if function.tag != JS_TAG_EXCEPTION {
      return unsafe { JS_EvalFunction(ctx, function) };
    }
    let exc = unsafe { JS_GetException(ctx) };
    unsafe { JS_FreeValue(ctx, exc) };
  }

  let source = CString::new(source).expect("bootstrap script contains NUL");
  let function = unsafe {
    JS_Eval(
      ctx,
      source.as_ptr(),
      source.as_bytes().len(),
      filename.as_ptr(),
      JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_COMPILE_ONLY,
    )
  };
  if function.tag == JS_TAG_EXCEPTION {
    return function;
  }
  unsafe { super::module::bc_write(ctx, key, function) };
  unsafe { JS_EvalFunction(ctx, function) }
}

/// What built-in scripts' cache keys are seeded with, apart from any eval
/// flags a script compiled through the API could have.
const BUILT_IN_SCRIPT_KEY_FLAGS: u64 = 1 << 40;

// gg patch: Temporal is installed on first use. Evaluating the 430 KB
// polyfill was more than half of creating an isolate, and few programs touch
// Temporal. `globalThis.Temporal` starts as an accessor whose getter installs
// the polyfill and then reads the real value; `Date.prototype.toTemporalInstant`
// starts as a function that installs it and calls the real one. The polyfill
// computes time zones through `Intl.DateTimeFormat`: it is shown the one that
// was current when the accessor was made (the engine's own), as it was when
// it ran eagerly, and the embedder's `Intl.DateTimeFormat` is put back after.

unsafe extern "C" {
  fn JS_DefinePropertyValueStr(
    ctx: *mut JSContext,
    this_obj: JSValue,
    prop: *const c_char,
    val: JSValue,
    flags: c_int,
  ) -> c_int;
}

thread_local! {
  static INSTALLING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Defines the lazy `Temporal` accessor and `toTemporalInstant` on `global`.
pub(crate) unsafe fn install(ctx: *mut JSContext, global: JSValue) {
  let atom = unsafe { JS_NewAtom(ctx, c"Temporal".as_ptr()) };
  let present = unsafe { JS_HasProperty(ctx, global, atom) } != 0;
  if present {
    unsafe { JS_FreeAtom(ctx, atom) };
    return;
  }
  let intl = unsafe { JS_GetPropertyStr(ctx, global, c"Intl".as_ptr()) };
  let mut engine_dtf = if jsv_is_object(&intl) {
    unsafe { JS_GetPropertyStr(ctx, intl, c"DateTimeFormat".as_ptr()) }
  } else {
    jsv_undefined()
  };
  unsafe { JS_FreeValue(ctx, intl) };
  let getter = unsafe {
    JS_NewCFunctionData(ctx, temporal_getter, 0, 0, 1, &mut engine_dtf)
  };
  let setter =
    unsafe { JS_NewCFunctionData(ctx, temporal_setter, 1, 0, 0, std::ptr::null_mut()) };
  unsafe {
    JS_DefinePropertyGetSet(ctx, global, atom, getter, setter, JS_PROP_CONFIGURABLE);
    JS_FreeAtom(ctx, atom);
  }
  let date = unsafe { JS_GetPropertyStr(ctx, global, c"Date".as_ptr()) };
  let prototype = unsafe { JS_GetPropertyStr(ctx, date, c"prototype".as_ptr()) };
  let to_instant = unsafe {
    JS_NewCFunctionData(ctx, to_temporal_instant, 0, 0, 1, &mut engine_dtf)
  };
  unsafe {
    JS_DefinePropertyValueStr(
      ctx,
      prototype,
      c"toTemporalInstant".as_ptr(),
      to_instant,
      JS_PROP_CONFIGURABLE | JS_PROP_WRITABLE,
    );
    JS_FreeValue(ctx, prototype);
    JS_FreeValue(ctx, date);
    JS_FreeValue(ctx, engine_dtf);
  }
}

/// Installs the polyfill now, with `engine_dtf` as `Intl.DateTimeFormat`
/// while it evaluates. False when it threw (the exception is pending).
unsafe fn install_now(ctx: *mut JSContext, engine_dtf: JSValue) -> bool {
  let global = unsafe { JS_GetGlobalObject(ctx) };
  let intl = unsafe { JS_GetPropertyStr(ctx, global, c"Intl".as_ptr()) };
  let swap = jsv_is_object(&intl) && !jsv_is_undefined(&engine_dtf);
  let current = if swap {
    let current = unsafe { JS_GetPropertyStr(ctx, intl, c"DateTimeFormat".as_ptr()) };
    unsafe {
      JS_SetPropertyStr(ctx, intl, c"DateTimeFormat".as_ptr(), JS_DupValue(ctx, engine_dtf))
    };
    current
  } else {
    jsv_undefined()
  };
  INSTALLING.with(|flag| flag.set(true));
  let ok = unsafe { install_polyfill(ctx) };
  INSTALLING.with(|flag| flag.set(false));
  if swap {
    // The pending exception, if any, survives the restore.
    let exception = if ok { jsv_undefined() } else { unsafe { JS_GetException(ctx) } };
    unsafe { JS_SetPropertyStr(ctx, intl, c"DateTimeFormat".as_ptr(), current) };
    if !ok {
      unsafe { JS_Throw(ctx, exception) };
    }
  }
  unsafe {
    JS_FreeValue(ctx, intl);
    JS_FreeValue(ctx, global);
  }
  ok
}

unsafe extern "C" fn temporal_getter(
  ctx: *mut JSContext,
  _this: JSValue,
  _argc: c_int,
  _argv: *mut JSValue,
  _magic: c_int,
  data: *mut JSValue,
) -> JSValue {
  if INSTALLING.with(|flag| flag.get()) {
    return jsv_undefined();
  }
  if !unsafe { install_now(ctx, *data) } {
    return JSValue { u: JSValueUnion { int32: 0 }, tag: JS_TAG_EXCEPTION };
  }
  let global = unsafe { JS_GetGlobalObject(ctx) };
  let temporal = unsafe { JS_GetPropertyStr(ctx, global, c"Temporal".as_ptr()) };
  unsafe { JS_FreeValue(ctx, global) };
  temporal
}

unsafe extern "C" fn temporal_setter(
  ctx: *mut JSContext,
  _this: JSValue,
  argc: c_int,
  argv: *mut JSValue,
  _magic: c_int,
  _data: *mut JSValue,
) -> JSValue {
  let value = if argc > 0 { unsafe { JS_DupValue(ctx, *argv) } } else { jsv_undefined() };
  let global = unsafe { JS_GetGlobalObject(ctx) };
  unsafe {
    JS_DefinePropertyValueStr(
      ctx,
      global,
      c"Temporal".as_ptr(),
      value,
      JS_PROP_CONFIGURABLE | JS_PROP_WRITABLE,
    );
    JS_FreeValue(ctx, global);
  }
  jsv_undefined()
}

unsafe extern "C" fn to_temporal_instant(
  ctx: *mut JSContext,
  this: JSValue,
  argc: c_int,
  argv: *mut JSValue,
  _magic: c_int,
  data: *mut JSValue,
) -> JSValue {
  let global = unsafe { JS_GetGlobalObject(ctx) };
  let temporal_atom = unsafe { JS_NewAtom(ctx, c"Temporal".as_ptr()) };
  // The accessor is still there until the first install.
  let installed = !INSTALLING.with(|flag| flag.get()) && unsafe { install_now(ctx, *data) };
  unsafe { JS_FreeAtom(ctx, temporal_atom) };
  if !installed {
    unsafe { JS_FreeValue(ctx, global) };
    return JSValue { u: JSValueUnion { int32: 0 }, tag: JS_TAG_EXCEPTION };
  }
  let date = unsafe { JS_GetPropertyStr(ctx, global, c"Date".as_ptr()) };
  let prototype = unsafe { JS_GetPropertyStr(ctx, date, c"prototype".as_ptr()) };
  let real = unsafe { JS_GetPropertyStr(ctx, prototype, c"toTemporalInstant".as_ptr()) };
  let result = unsafe { JS_Call(ctx, real, this, argc, argv) };
  unsafe {
    JS_FreeValue(ctx, real);
    JS_FreeValue(ctx, prototype);
    JS_FreeValue(ctx, date);
    JS_FreeValue(ctx, global);
  }
  result
}

/// Evaluates the polyfill and installs `Temporal` as a plain global. False
/// when it threw (the exception is pending).
unsafe fn install_polyfill(ctx: *mut JSContext) -> bool {
  const POLYFILL: &[u8] =
    include_bytes!("../../vendor/temporal-polyfill/index.umd.js");
  let result =
    unsafe { eval_cached_script(ctx, POLYFILL, c"<temporal-polyfill>") };
  if result.tag == JS_TAG_EXCEPTION {
    return false;
  }
  unsafe { JS_FreeValue(ctx, result) };

  const INSTALL: &[u8] = br#"
    (function(g) {
      const implementation = g.temporal;
      if (!implementation || !implementation.Temporal) return;
      const temporal = {};
      for (const name of Object.getOwnPropertyNames(implementation.Temporal)) {
        Object.defineProperty(temporal, name, {
          value: implementation.Temporal[name],
          writable: true,
          configurable: true
        });
      }
      Object.defineProperty(temporal, Symbol.toStringTag, {
        value: "Temporal",
        configurable: true
      });
      Object.defineProperty(g, "Temporal", {
        value: temporal,
        writable: true,
        configurable: true
      });
      if (implementation.Intl && implementation.Intl.DateTimeFormat) {
        g.Intl.DateTimeFormat = implementation.Intl.DateTimeFormat;
      }
      if (implementation.toTemporalInstant) {
        Object.defineProperty(Date.prototype, "toTemporalInstant", {
          value: implementation.toTemporalInstant,
          writable: true,
          configurable: true
        });
      }
      delete g.temporal;
    })(globalThis);
  "#;
  let result =
    unsafe { eval_cached_script(ctx, INSTALL, c"<temporal-install>") };
  if result.tag == JS_TAG_EXCEPTION {
    return false;
  }
  unsafe { JS_FreeValue(ctx, result) };
  true
}
