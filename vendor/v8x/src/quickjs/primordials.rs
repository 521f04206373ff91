//! gg patch: the property copies of deno_core's primordials, made natively.
//!
//! `00_primordials.js` walks every intrinsic (about forty constructors, their
//! prototypes and the iterator and generator prototypes) and copies each own
//! property onto the frozen `primordials` object under a renamed key, wrapping
//! methods so that they can be called without touching the prototype again.
//! Written in JavaScript that walk allocates a descriptor, a spread copy and a
//! few template strings per property: about 800 properties, a third of an
//! isolate's whole bootstrap on this interpreter. The function made here does
//! the same walk with the engine's own property enumeration and descriptors.
//!
//! It is handed to the script for the length of its run only (deno_core puts
//! it on the global object, the script takes it off before anything else runs)
//! and it does exactly what the script's loops do, in the same order, with the
//! same attributes, calling the script's own `uncurryThis` and `applyBind`.
//!
//! One difference no script can see: a method the script would wrap with
//! `uncurryThis` (some 600, of which an isolate's bootstrap reads about 80
//! and its programs none) is defined to be wrapped when first read
//! (`v82jsc_define_lazy_uncurried` in QuickJS), each wrapper made as the
//! script's would have been, whatever a program changed since. And when the
//! intrinsic's own method is not made yet either (QuickJS makes a listed
//! method when its property is first read), the wrapper holds the method's
//! list entry instead, and both are made together when the wrapper is read
//! (`v82jsc_define_lazy_uncurried_entry`): the copy no longer makes the
//! ~450 methods an isolate never calls.

use super::core::{ctx_of, intern};
use super::quickjs_sys::*;
use crate::{Context, Function};
use std::borrow::Cow;
use std::os::raw::{c_char, c_int};

unsafe extern "C" {
  fn JS_GetOwnPropertyNames(
    ctx: *mut JSContext,
    ptab: *mut *mut PropertyEnum,
    plen: *mut u32,
    obj: JSValue,
    flags: c_int,
  ) -> c_int;
  fn JS_AtomToCStringLen(
    ctx: *mut JSContext,
    plen: *mut usize,
    atom: JSAtom,
  ) -> *const c_char;
  fn JS_FreePropertyEnum(ctx: *mut JSContext, tab: *mut PropertyEnum, len: u32);
  fn JS_GetOwnProperty(
    ctx: *mut JSContext,
    desc: *mut PropertyDescriptor,
    obj: JSValue,
    prop: JSAtom,
  ) -> c_int;
  fn JS_DefineProperty(
    ctx: *mut JSContext,
    this_obj: JSValue,
    prop: JSAtom,
    val: JSValue,
    getter: JSValue,
    setter: JSValue,
    flags: c_int,
  ) -> c_int;
  fn v82jsc_define_lazy_uncurried(
    ctx: *mut JSContext,
    obj: JSValue,
    prop: JSAtom,
    uncurry_this: JSValue,
    fn_: JSValue,
    flags: c_int,
  ) -> c_int;
  fn v82jsc_define_lazy_uncurried_entry(
    ctx: *mut JSContext,
    obj: JSValue,
    prop: JSAtom,
    uncurry_this: JSValue,
    src: JSValue,
    src_prop: JSAtom,
  ) -> c_int;
  fn v82jsc_lazy_uncurried_stats(
    left: *mut u64,
    made: *mut u64,
    entries: *mut u64,
  );
}

/// Whether uncurried methods are made when first read rather than when
/// copied (gg patch); on unless turned off, which only makes isolates
/// slower to create and larger.
static LAZY_UNCURRIED: std::sync::atomic::AtomicBool =
  std::sync::atomic::AtomicBool::new(true);

pub(crate) fn set_lazy_uncurried(enabled: bool) {
  LAZY_UNCURRIED.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// Of the uncurried methods this process left to be made when first read,
/// how many, how many of them were made since, and how many were left so
/// over an intrinsic method not made yet either.
pub(crate) fn lazy_uncurried_stats() -> (u64, u64, u64) {
  let (mut left, mut made, mut entries) = (0u64, 0u64, 0u64);
  unsafe { v82jsc_lazy_uncurried_stats(&mut left, &mut made, &mut entries) };
  (left, made, entries)
}

#[repr(C)]
struct PropertyEnum {
  is_enumerable: bool,
  atom: JSAtom,
}

#[repr(C)]
struct PropertyDescriptor {
  flags: c_int,
  value: JSValue,
  getter: JSValue,
  setter: JSValue,
}

const GPN_STRING_MASK: c_int = 1 << 0;
const GPN_SYMBOL_MASK: c_int = 1 << 1;
const PROP_GETSET: c_int = 1 << 4;
const PROP_HAS_CONFIGURABLE: c_int = 1 << 8;
const PROP_HAS_WRITABLE: c_int = 1 << 9;
const PROP_HAS_ENUMERABLE: c_int = 1 << 10;
const PROP_HAS_VALUE: c_int = 1 << 13;
const PROP_HAS_GET: c_int = 1 << 11;
const PROP_HAS_SET: c_int = 1 << 12;

/// How a data property's value is carried over, one per copy loop of the
/// script.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Copy {
  /// `copyPropsRenamed`: the value as it is (statics of a constructor).
  AsIs,
  /// `copyPropsRenamedBound`: functions bound to their owner (`Promise`'s
  /// statics need their constructor as `this`).
  BoundToOwner,
  /// `copyPrototype`: functions uncurried (`this` becomes the first argument).
  Uncurried,
}

/// The script's `getNewKey`, appended to `out`: `Symbol.iterator` becomes
/// `SymbolIterator`, `map` becomes `Map`. False where the script would throw
/// (a key too short).
fn push_renamed_key(out: &mut String, key: &str, is_symbol: bool) -> bool {
  let Some(rest) = (if is_symbol { key.get(7..) } else { Some(key) }) else {
    return false;
  };
  let mut chars = rest.chars();
  let Some(first) = chars.next() else {
    return false;
  };
  if is_symbol {
    out.push_str("Symbol");
  }
  out.extend(first.to_uppercase());
  out.push_str(chars.as_str());
  true
}

/// `${prefix}Get${newKey}` from `name` (`${prefix}${newKey}`).
fn accessor_name(name: &str, prefix_len: usize, verb: &str) -> String {
  let mut out = String::with_capacity(name.len() + verb.len());
  out.push_str(&name[..prefix_len]);
  out.push_str(verb);
  out.push_str(&name[prefix_len..]);
  out
}

/// Owns the values a copy holds and frees them on every way out.
struct Held {
  ctx: *mut JSContext,
  values: [JSValue; 8],
  len: usize,
}

impl Held {
  fn keep(&mut self, v: JSValue) -> JSValue {
    self.values[self.len] = v;
    self.len += 1;
    v
  }
}

impl Drop for Held {
  fn drop(&mut self) {
    for v in &self.values[..self.len] {
      unsafe { JS_FreeValue(self.ctx, *v) };
    }
  }
}

/// The characters of `v`, seen in place where QuickJS keeps them as flat
/// ASCII (every argument deno_core's script passes), else converted.
unsafe fn text_in_place_or_copied<'a>(
  ctx: *mut JSContext,
  v: JSValue,
) -> Option<Cow<'a, str>> {
  match unsafe { super::string::ascii_text_of(v) } {
    Some(text) => Some(Cow::Borrowed(text)),
    None => unsafe { text_of(ctx, v) }.map(Cow::Owned),
  }
}

unsafe fn text_of(ctx: *mut JSContext, v: JSValue) -> Option<String> {
  let mut len = 0usize;
  let ptr = unsafe { JS_ToCStringLen(ctx, &mut len, v) };
  if ptr.is_null() {
    return None;
  }
  let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
  let text = super::string::utf8_lossy(bytes).into_owned();
  unsafe { JS_FreeCString(ctx, ptr) };
  Some(text)
}

/// Whether `name` is one of the script's comma-separated `varargs` methods.
/// The script passes the same list to every copy, so it is split once per
/// thread and kept beside the text it was split from.
fn is_varargs_method(varargs: &str, name: &str) -> bool {
  thread_local! {
    static SPLIT: std::cell::RefCell<(String, Vec<String>)> =
      const { std::cell::RefCell::new((String::new(), Vec::new())) };
  }
  SPLIT.with(|split| {
    let mut split = split.borrow_mut();
    if split.0 != varargs {
      let methods = varargs.split(',').map(str::to_owned).collect();
      *split = (varargs.to_owned(), methods);
    }
    split.1.iter().any(|method| method == name)
  })
}

/// `Reflect.defineProperty(dest, name, { value, ...attributes })`; returns
/// false when an exception is pending.
unsafe fn define(
  ctx: *mut JSContext,
  dest: JSValue,
  name: &str,
  value: JSValue,
  flags: c_int,
) -> bool {
  let atom =
    unsafe { JS_NewAtomLen(ctx, name.as_ptr() as *const c_char, name.len()) };
  if atom == 0 {
    return false;
  }
  let r = unsafe {
    JS_DefineProperty(
      ctx,
      dest,
      atom,
      value,
      jsv_undefined(),
      jsv_undefined(),
      flags | PROP_HAS_VALUE,
    )
  };
  unsafe { JS_FreeAtom(ctx, atom) };
  r >= 0
}

/// `Reflect.defineProperty(dest, name, { value: uncurryThis(f), ... })`
/// (`flags` as for `define`). The value is made when first
/// read where the engine can make it exactly as `uncurryThis` would have:
/// most of the ~600 methods wrapped so are never called in an isolate's
/// life. Returns false when an exception is pending.
unsafe fn define_uncurried(
  ctx: *mut JSContext,
  dest: JSValue,
  name: &str,
  uncurry_this: JSValue,
  f: JSValue,
  flags: c_int,
) -> bool {
  if LAZY_UNCURRIED.load(std::sync::atomic::Ordering::Relaxed) {
    let atom =
      unsafe { JS_NewAtomLen(ctx, name.as_ptr() as *const c_char, name.len()) };
    if atom == 0 {
      return false;
    }
    let r = unsafe {
      v82jsc_define_lazy_uncurried(
        ctx,
        dest,
        atom,
        uncurry_this,
        f,
        flags & JS_PROP_C_W_E,
      )
    };
    unsafe { JS_FreeAtom(ctx, atom) };
    match r {
      1 => return true,
      0 => {}
      _ => return false,
    }
  }
  let value = unsafe { call1(ctx, uncurry_this, jsv_undefined(), &mut [f]) };
  if jsv_is_exception(&value) {
    return false;
  }
  let defined = unsafe { define(ctx, dest, name, value, flags) };
  unsafe { JS_FreeValue(ctx, value) };
  defined
}

/// [`define_uncurried`] of `src[src_atom]` while QuickJS has not made that
/// intrinsic method yet: the wrapper is defined to make the method from
/// its list entry when first read, with `src`'s attributes of it. `None`
/// when that does not apply (the caller reads the method and defines as
/// before); otherwise whether it was defined (false: an exception).
unsafe fn define_uncurried_unmade(
  ctx: *mut JSContext,
  dest: JSValue,
  name: &str,
  uncurry_this: JSValue,
  src: JSValue,
  src_atom: JSAtom,
) -> Option<bool> {
  let atom =
    unsafe { JS_NewAtomLen(ctx, name.as_ptr() as *const c_char, name.len()) };
  if atom == 0 {
    return Some(false);
  }
  let r = unsafe {
    v82jsc_define_lazy_uncurried_entry(ctx, dest, atom, uncurry_this, src, src_atom)
  };
  unsafe { JS_FreeAtom(ctx, atom) };
  match r {
    1 => Some(true),
    0 => None,
    _ => Some(false),
  }
}

unsafe fn call1(
  ctx: *mut JSContext,
  f: JSValue,
  this: JSValue,
  args: &mut [JSValue],
) -> JSValue {
  unsafe { JS_Call(ctx, f, this, args.len() as c_int, args.as_mut_ptr()) }
}

/// `copy(src, dest, prefix, mode, uncurryThis, applyBind, varargsMethods)`:
/// mode 0, 1 and 2 are the script's `copyPropsRenamed`,
/// `copyPropsRenamedBound` and `copyPrototype`, mode 3 its `copyProps`
/// (which reads neither `prefix` nor the last three); `varargsMethods` is
/// the script's list joined with commas.
unsafe extern "C" fn copy_intrinsic_properties(
  ctx: *mut JSContext,
  _this: JSValue,
  argc: c_int,
  argv: *mut JSValue,
) -> JSValue {
  if argc < 7 || argv.is_null() {
    return unsafe {
      JS_ThrowTypeError(ctx, c"copyIntrinsicProperties: 7 arguments".as_ptr())
    };
  }
  let args = unsafe { std::slice::from_raw_parts(argv, 7) };
  let [src, dest, prefix, mode, uncurry_this, apply_bind, varargs] =
    [args[0], args[1], args[2], args[3], args[4], args[5], args[6]];
  // The three strings live in `argv` for the whole call.
  let (Some(prefix), Some(mode), Some(varargs)) = (
    unsafe { text_in_place_or_copied(ctx, prefix) },
    unsafe { text_in_place_or_copied(ctx, mode) },
    unsafe { text_in_place_or_copied(ctx, varargs) },
  ) else {
    return jsv_exception();
  };
  let mode = match &*mode {
    "3" => {
      return if unsafe { copy_missing_properties(ctx, src, dest) } {
        jsv_undefined()
      } else {
        jsv_exception()
      };
    }
    "0" => Copy::AsIs,
    "1" => Copy::BoundToOwner,
    "2" => Copy::Uncurried,
    _ => {
      return unsafe {
        JS_ThrowTypeError(ctx, c"copyIntrinsicProperties: mode".as_ptr())
      };
    }
  };

  let mut tab: *mut PropertyEnum = std::ptr::null_mut();
  let mut len: u32 = 0;
  if unsafe {
    JS_GetOwnPropertyNames(
      ctx,
      &mut tab,
      &mut len,
      src,
      GPN_STRING_MASK | GPN_SYMBOL_MASK,
    )
  } < 0
  {
    return jsv_exception();
  }
  let keys = unsafe { std::slice::from_raw_parts(tab, len as usize) };
  let mut name = String::with_capacity(prefix.len() + 48);
  name.push_str(&prefix);
  let ok = keys.iter().all(|key| unsafe {
    copy_one(
      ctx,
      src,
      dest,
      &prefix,
      mode,
      uncurry_this,
      apply_bind,
      &varargs,
      &mut name,
      key.atom,
    )
  });
  unsafe { JS_FreePropertyEnum(ctx, tab, len) };
  if ok { jsv_undefined() } else { jsv_exception() }
}

/// The script's `copyProps(src, dest)`: each own property of `src`
/// (`Reflect.ownKeys` order) that `dest` does not have is defined on `dest`
/// with `src`'s descriptor, as `ReflectDefineProperty(dest, key,
/// { __proto__: null, ...ReflectGetOwnPropertyDescriptor(src, key) })`
/// does, whose result the script ignores. Written in JavaScript the loop
/// made a descriptor object, a spread copy and a callback call per key for
/// the safe classes' ~150 properties. False when an exception is pending.
unsafe fn copy_missing_properties(
  ctx: *mut JSContext,
  src: JSValue,
  dest: JSValue,
) -> bool {
  let mut tab: *mut PropertyEnum = std::ptr::null_mut();
  let mut len: u32 = 0;
  if unsafe {
    JS_GetOwnPropertyNames(
      ctx,
      &mut tab,
      &mut len,
      src,
      GPN_STRING_MASK | GPN_SYMBOL_MASK,
    )
  } < 0
  {
    return false;
  }
  let keys = unsafe { std::slice::from_raw_parts(tab, len as usize) };
  let ok = keys
    .iter()
    .all(|key| unsafe { copy_if_missing(ctx, src, dest, key.atom) });
  unsafe { JS_FreePropertyEnum(ctx, tab, len) };
  ok
}

/// One key of [`copy_missing_properties`].
unsafe fn copy_if_missing(
  ctx: *mut JSContext,
  src: JSValue,
  dest: JSValue,
  atom: JSAtom,
) -> bool {
  let mut existing = PropertyDescriptor {
    flags: 0,
    value: jsv_undefined(),
    getter: jsv_undefined(),
    setter: jsv_undefined(),
  };
  match unsafe { JS_GetOwnProperty(ctx, &mut existing, dest, atom) } {
    r if r < 0 => return false,
    0 => {}
    _ => {
      for v in [existing.value, existing.getter, existing.setter] {
        unsafe { JS_FreeValue(ctx, v) };
      }
      return true;
    }
  }
  let mut desc = PropertyDescriptor {
    flags: 0,
    value: jsv_undefined(),
    getter: jsv_undefined(),
    setter: jsv_undefined(),
  };
  // `...undefined` copies nothing: a key gone from `src` meanwhile is
  // defined as `{}` would define it, an undefined data property.
  if unsafe { JS_GetOwnProperty(ctx, &mut desc, src, atom) } < 0 {
    return false;
  }
  let held = Held {
    ctx,
    values: [
      desc.value,
      desc.getter,
      desc.setter,
      jsv_undefined(),
      jsv_undefined(),
      jsv_undefined(),
      jsv_undefined(),
      jsv_undefined(),
    ],
    len: 3,
  };
  let flags = if desc.flags & PROP_GETSET != 0 {
    PROP_HAS_CONFIGURABLE
      | PROP_HAS_ENUMERABLE
      | PROP_HAS_GET
      | PROP_HAS_SET
      | (desc.flags & (JS_PROP_CONFIGURABLE | JS_PROP_ENUMERABLE))
  } else if desc.flags == 0 && jsv_is_undefined(&desc.value) {
    0
  } else {
    PROP_HAS_CONFIGURABLE
      | PROP_HAS_WRITABLE
      | PROP_HAS_ENUMERABLE
      | PROP_HAS_VALUE
      | (desc.flags & JS_PROP_C_W_E)
  };
  let r = unsafe {
    JS_DefineProperty(
      ctx,
      dest,
      atom,
      desc.value,
      desc.getter,
      desc.setter,
      flags,
    )
  };
  drop(held);
  r >= 0
}

#[allow(clippy::too_many_arguments)]
unsafe fn copy_one(
  ctx: *mut JSContext,
  src: JSValue,
  dest: JSValue,
  prefix: &str,
  mode: Copy,
  uncurry_this: JSValue,
  apply_bind: JSValue,
  varargs: &str,
  name: &mut String,
  atom: JSAtom,
) -> bool {
  let prefix_len = prefix.len();
  let mut held = Held {
    ctx,
    values: [jsv_undefined(); 8],
    len: 0,
  };
  let key_value = held.keep(unsafe { JS_AtomToValue(ctx, atom) });
  let is_symbol = key_value.tag == JS_TAG_SYMBOL;
  // `name` is `${prefix}${newKey}`, made in the caller's buffer.
  name.truncate(prefix_len);
  // A string key is read where it lies (`key_value` is held); a symbol's
  // text is its description, made by QuickJS.
  let renamed = match unsafe { super::string::ascii_text_of(key_value) } {
    Some(key) => push_renamed_key(name, key, is_symbol),
    None => {
      let mut key_len = 0usize;
      let key_ptr = unsafe { JS_AtomToCStringLen(ctx, &mut key_len, atom) };
      if key_ptr.is_null() {
        return false;
      }
      let key_bytes =
        unsafe { std::slice::from_raw_parts(key_ptr as *const u8, key_len) };
      let renamed = push_renamed_key(
        name,
        &super::string::utf8_lossy(key_bytes),
        is_symbol,
      );
      unsafe { JS_FreeCString(ctx, key_ptr) };
      renamed
    }
  };
  if !renamed {
    unsafe {
      JS_ThrowTypeError(ctx, c"copyIntrinsicProperties: a key too short".as_ptr())
    };
    return false;
  }
  // A method still unmade in its intrinsic is wrapped unmade, from its
  // list entry; a method the script also applies (`…Apply`) is read now.
  if mode == Copy::Uncurried
    && LAZY_UNCURRIED.load(std::sync::atomic::Ordering::Relaxed)
    && !is_varargs_method(varargs, name)
  {
    if let Some(defined) =
      unsafe { define_uncurried_unmade(ctx, dest, name, uncurry_this, src, atom) }
    {
      return defined;
    }
  }
  let mut desc = PropertyDescriptor {
    flags: 0,
    value: jsv_undefined(),
    getter: jsv_undefined(),
    setter: jsv_undefined(),
  };
  match unsafe { JS_GetOwnProperty(ctx, &mut desc, src, atom) } {
    r if r < 0 => return false,
    0 => {
      unsafe {
        JS_ThrowTypeError(ctx, c"copyIntrinsicProperties: a key vanished".as_ptr())
      };
      return false;
    }
    _ => {}
  }
  held.keep(desc.value);
  held.keep(desc.getter);
  held.keep(desc.setter);
  let enumerable = PROP_HAS_ENUMERABLE | (desc.flags & JS_PROP_ENUMERABLE);

  if desc.flags & PROP_GETSET != 0 {
    // copyAccessor: `${prefix}Get${key}` and, when there is a setter,
    // `${prefix}Set${key}`, each uncurried, keeping only `enumerable`.
    let get_name = accessor_name(name, prefix_len, "Get");
    if !unsafe {
      define_uncurried(ctx, dest, &get_name, uncurry_this, desc.getter, enumerable)
    } {
      return false;
    }
    if !jsv_is_undefined(&desc.setter) {
      let set_name = accessor_name(name, prefix_len, "Set");
      return unsafe {
        define_uncurried(ctx, dest, &set_name, uncurry_this, desc.setter, enumerable)
      };
    }
    return true;
  }

  let is_function = unsafe { JS_IsFunction(ctx, desc.value) };
  let attributes = PROP_HAS_CONFIGURABLE
    | PROP_HAS_WRITABLE
    | PROP_HAS_ENUMERABLE
    | (desc.flags & JS_PROP_C_W_E);
  if mode == Copy::Uncurried && is_function {
    if !unsafe {
      define_uncurried(ctx, dest, name, uncurry_this, desc.value, attributes)
    } {
      return false;
    }
  } else {
    let value = match mode {
      Copy::BoundToOwner if is_function => {
        let bind = held.keep(unsafe {
          JS_GetPropertyStr(ctx, desc.value, c"bind".as_ptr())
        });
        if jsv_is_exception(&bind) {
          return false;
        }
        held.keep(unsafe { call1(ctx, bind, desc.value, &mut [src]) })
      }
      _ => desc.value,
    };
    if jsv_is_exception(&value)
      || !unsafe { define(ctx, dest, name, value, attributes) }
    {
      return false;
    }
  }
  if is_varargs_method(varargs, name) {
    let applied = held.keep(unsafe {
      match mode {
        Copy::Uncurried => {
          call1(ctx, apply_bind, jsv_undefined(), &mut [desc.value])
        }
        _ => call1(ctx, apply_bind, jsv_undefined(), &mut [desc.value, src]),
      }
    });
    name.push_str("Apply");
    if jsv_is_exception(&applied)
      || !unsafe { define(ctx, dest, name, applied, 0) }
    {
      return false;
    }
  }
  true
}

/// The copying function, for deno_core to hand to `00_primordials.js`.
#[unsafe(no_mangle)]
pub extern "C" fn v8x__IntrinsicCopier__New(
  context: *const Context,
) -> *const Function {
  let ctx = ctx_of(context);
  if ctx.is_null() {
    return std::ptr::null();
  }
  let f = unsafe {
    JS_NewCFunction(
      ctx,
      copy_intrinsic_properties,
      c"copyIntrinsicProperties".as_ptr(),
      7,
    )
  };
  if jsv_is_exception(&f) {
    return std::ptr::null();
  }
  intern::<Function>(f)
}

#[cfg(test)]
mod tests {
  use super::push_renamed_key;

  fn renamed(key: &str, is_symbol: bool) -> Option<String> {
    let mut out = String::from("P");
    push_renamed_key(&mut out, key, is_symbol).then_some(out)
  }

  #[test]
  fn keys_are_renamed_as_the_script_does() {
    assert_eq!(renamed("map", false).as_deref(), Some("PMap"));
    assert_eq!(renamed("__proto__", false).as_deref(), Some("P__proto__"));
    assert_eq!(
      renamed("Symbol.iterator", true).as_deref(),
      Some("PSymbolIterator")
    );
    assert_eq!(renamed("", false), None);
    assert_eq!(renamed("Symbol.", true), None);
  }
}
