//! QuickJS-backed String shims (family: "string").
//!
//! Construction, inspection, writing, external strings, and PrimitiveArray.
//!
//! QuickJS-ng stores strings internally as either Latin-1 or UTF-16, but its C
//! ABI hands them out as UTF-8 (`JS_ToCStringLen`). For the v8 surface — which
//! is fundamentally UTF-16 (offsets/lengths in code units) — we transcode the
//! UTF-8 bytes to UTF-16 once per call and operate on that. Refcount rules: any
//! `JSValue` a QuickJS function RETURNS is owned (+1) and goes through
//! `intern`/`JS_FreeValue`; borrowed values we want to keep go through
//! `intern_dup`.
#![allow(non_snake_case)]

use super::core::{
  adjust_external_memory, adjust_external_string_memory, current_ctx,
  current_iso, intern, iso_state, jsval_of,
};
use super::quickjs_sys::*;
use crate::isolate::RealIsolate;
use crate::string::{Encoding, ExternalStringResourceBase, OneByteConst};
use crate::support::{char, int, size_t};
use crate::{Primitive, PrimitiveArray, String as V8String};
use std::cell::RefCell;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::sync::OnceLock;

const K_NULL_TERMINATE: int =
  crate::binding::v8_String_WriteFlags_kNullTerminate as int;
const K_MAX_STRING_LENGTH: usize =
  crate::binding::v8__String__kMaxLength as usize;

fn locale_compare(
  left: &str,
  right: &str,
  numeric: bool,
) -> std::cmp::Ordering {
  static DEFAULT_COLLATOR: OnceLock<
    Option<icu_collator::CollatorBorrowed<'static>>,
  > = OnceLock::new();
  static NUMERIC_COLLATOR: OnceLock<
    Option<icu_collator::CollatorBorrowed<'static>>,
  > = OnceLock::new();
  let collator = if numeric {
    NUMERIC_COLLATOR.get_or_init(|| {
      let mut preferences: icu_collator::CollatorPreferences =
        icu_locale::locale!("en-US").into();
      preferences.numeric_ordering =
        Some(icu_collator::preferences::CollationNumericOrdering::True);
      icu_collator::Collator::try_new(preferences, Default::default()).ok()
    })
  } else {
    DEFAULT_COLLATOR.get_or_init(|| {
      icu_collator::Collator::try_new(
        icu_locale::locale!("en-US").into(),
        Default::default(),
      )
      .ok()
    })
  };
  collator
    .as_ref()
    .map(|collator| collator.compare(left, right))
    .unwrap_or_else(|| left.cmp(right))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn v82jsc_locale_compare_utf32(
  left: *const u32,
  left_len: c_int,
  right: *const u32,
  right_len: c_int,
  numeric: c_int,
) -> c_int {
  if left_len < 0
    || right_len < 0
    || (left.is_null() && left_len != 0)
    || (right.is_null() && right_len != 0)
  {
    return 0;
  }
  let left = if left_len == 0 {
    &[]
  } else {
    unsafe { std::slice::from_raw_parts(left, left_len as usize) }
  };
  let right = if right_len == 0 {
    &[]
  } else {
    unsafe { std::slice::from_raw_parts(right, right_len as usize) }
  };
  let left: std::string::String = left
    .iter()
    .filter_map(|&c| std::char::from_u32(c))
    .collect();
  let right: std::string::String = right
    .iter()
    .filter_map(|&c| std::char::from_u32(c))
    .collect();
  match locale_compare(&left, &right, numeric != 0) {
    std::cmp::Ordering::Less => -1,
    std::cmp::Ordering::Equal => 0,
    std::cmp::Ordering::Greater => 1,
  }
}

/// An external one-byte string's characters, as V8's resource gives them:
/// a copy of the buffer the embedder handed over (and that was freed then).
#[repr(C)]
struct ExternalOneByteMeta {
  data: *const u8,
  len: usize,
  owned: Box<[u8]>,
}

impl ExternalOneByteMeta {
  fn owned(bytes: Box<[u8]>) -> Self {
    Self { data: bytes.as_ptr(), len: bytes.len(), owned: bytes }
  }
}

enum ExternalMeta {
  OneByte(Box<ExternalOneByteMeta>),
  TwoByte,
}

thread_local! {
  // Keyed by handle address, with the isolate the handle belongs to (gg
  // patch): a disposed isolate's entries are dropped with it, so the map
  // neither grows with every isolate (each holds a copy of every extension
  // source deno_core hands over) nor answers for a reused handle address.
  static EXTERNAL_STRINGS: RefCell<crate::quickjs::core::AddressMap<(usize, ExternalMeta)>> = RefCell::new(Default::default());
}

/// The isolate a record belongs to: the one the caller named, else the
/// current one.
fn owner_of(isolate: *mut RealIsolate) -> usize {
  if isolate.is_null() {
    super::core::current_iso() as usize
  } else {
    isolate as usize
  }
}

fn remember_external_onebyte(
  isolate: *mut RealIsolate,
  handle: *const V8String,
  bytes: ExternalOneByteMeta,
) {
  if handle.is_null() {
    return;
  }
  let owner = owner_of(isolate);
  EXTERNAL_STRINGS.with(|m| {
    m.borrow_mut().insert(
      handle as usize,
      (owner, ExternalMeta::OneByte(Box::new(bytes))),
    );
  });
}

fn remember_external_twobyte(isolate: *mut RealIsolate, handle: *const V8String) {
  if handle.is_null() {
    return;
  }
  let owner = owner_of(isolate);
  EXTERNAL_STRINGS.with(|m| {
    m.borrow_mut()
      .insert(handle as usize, (owner, ExternalMeta::TwoByte));
  });
}

/// Forgets the external strings of `isolate`, which is being disposed.
/// `bytes` as text, invalid sequences replaced by U+FFFD. Borrows when the
/// bytes are valid UTF-8, checked first with the standard library's
/// word-at-a-time validator: `String::from_utf8_lossy` walks byte by byte,
/// which showed up at several percent of an isolate's bootstrap when applied
/// to every script source crossing the API.
pub(crate) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
  match std::str::from_utf8(bytes) {
    Ok(text) => std::borrow::Cow::Borrowed(text),
    Err(_) => std::string::String::from_utf8_lossy(bytes),
  }
}

pub(crate) fn release_isolate_external_strings(isolate: *mut RealIsolate) {
  let owner = isolate as usize;
  EXTERNAL_STRINGS.with(|m| m.borrow_mut().retain(|_, (o, _)| *o != owner));
}

#[inline]
fn ctx_for(isolate: *mut RealIsolate) -> *mut JSContext {
  if !isolate.is_null() {
    super::core::iso_state(isolate)
      .contexts
      .last()
      .copied()
      .unwrap_or(super::core::iso_state(isolate).ctx)
  } else {
    current_ctx()
  }
}

#[inline]
fn account_external_string_memory(isolate: *mut RealIsolate, bytes: usize) {
  let isolate = if isolate.is_null() {
    current_iso()
  } else {
    isolate
  };
  if isolate.is_null() || bytes == 0 {
    return;
  }
  let bytes = bytes.min(i64::MAX as usize) as i64;
  let st = iso_state(isolate);
  adjust_external_memory(st, bytes);
  adjust_external_string_memory(st, bytes);
}

/// A string's characters copied out of the JS heap: one byte per character
/// (Latin-1) when every stored piece is 8-bit, else UTF-16 code units.
enum StringUnits {
  OneByte(Vec<u8>),
  TwoByte(Vec<u16>),
}

impl StringUnits {
  fn into_utf16(self) -> Vec<u16> {
    match self {
      StringUnits::OneByte(bytes) => bytes.into_iter().map(u16::from).collect(),
      StringUnits::TwoByte(units) => units,
    }
  }

  /// Each character in order as a Unicode scalar (a lone surrogate becomes
  /// U+FFFD, as V8's UTF-8 writers make it) with the UTF-16 units it spans.
  fn for_each_scalar(
    &self,
    mut f: impl FnMut(::std::primitive::char, usize) -> bool,
  ) {
    match self {
      StringUnits::OneByte(bytes) => {
        for &b in bytes {
          if !f(::std::primitive::char::from(b), 1) {
            return;
          }
        }
      }
      StringUnits::TwoByte(units) => {
        for decoded in ::std::primitive::char::decode_utf16(units.iter().copied()) {
          let (c, span) = match decoded {
            Ok(c) => (c, c.len_utf16()),
            Err(_) => (::std::primitive::char::REPLACEMENT_CHARACTER, 1),
          };
          if !f(c, span) {
            return;
          }
        }
      }
    }
  }
}

unsafe extern "C" fn collect_string_piece(
  opaque: *mut c_void,
  chars: *const c_void,
  len: u32,
  is_wide_char: c_int,
) {
  let out = unsafe { &mut *(opaque as *mut StringUnits) };
  let len = len as usize;
  if is_wide_char != 0 {
    let piece = unsafe { std::slice::from_raw_parts(chars as *const u16, len) };
    if let StringUnits::OneByte(bytes) = out {
      // A rope may join 8-bit and 16-bit pieces: widen what came first.
      let mut units: Vec<u16> = Vec::with_capacity(bytes.capacity());
      units.extend(bytes.iter().map(|&b| u16::from(b)));
      *out = StringUnits::TwoByte(units);
    }
    if let StringUnits::TwoByte(units) = out {
      units.extend_from_slice(piece);
    }
  } else {
    let piece = unsafe { std::slice::from_raw_parts(chars as *const u8, len) };
    match out {
      StringUnits::OneByte(bytes) => bytes.extend_from_slice(piece),
      StringUnits::TwoByte(units) => {
        units.extend(piece.iter().map(|&b| u16::from(b)))
      }
    }
  }
}

/// Copies a string's characters out in place: nothing is allocated in the
/// JS heap and a rope is never flattened, so a string the heap has no room
/// to flatten or transcode is still read (and no allocation failure is left
/// pending as an exception for whatever runs next).
fn string_units(this: *const V8String) -> StringUnits {
  if this.is_null() {
    return StringUnits::OneByte(Vec::new());
  }
  let v = jsval_of(this);
  let mut len = 0u32;
  let mut wide: c_int = 0;
  if unsafe { JS_GetStringShape(v, &mut len, &mut wide) } < 0 {
    return StringUnits::OneByte(Vec::new());
  }
  let mut out = if wide != 0 {
    StringUnits::TwoByte(Vec::with_capacity(len as usize))
  } else {
    StringUnits::OneByte(Vec::with_capacity(len as usize))
  };
  unsafe {
    JS_VisitStringPieces(
      v,
      collect_string_piece,
      &mut out as *mut StringUnits as *mut c_void,
    )
  };
  out
}

/// The string's length in UTF-16 code units, read without copying.
fn string_length(this: *const V8String) -> usize {
  if this.is_null() {
    return 0;
  }
  let mut len = 0u32;
  let mut wide: c_int = 0;
  if unsafe { JS_GetStringShape(jsval_of(this), &mut len, &mut wide) } < 0 {
    return 0;
  }
  len as usize
}

#[inline]
fn handle_to_utf16(ctx: *mut JSContext, this: *const V8String) -> Vec<u16> {
  if ctx.is_null() {
    return Vec::new();
  }
  string_units(this).into_utf16()
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__Empty(
  isolate: *mut RealIsolate,
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let v = unsafe { JS_NewStringLen(ctx, c"".as_ptr(), 0) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  intern::<V8String>(v)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewFromTwoByte(
  isolate: *mut RealIsolate,
  data: *const u16,
  _new_type: int,
  length: int,
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let len = if length < 0 { 0 } else { length as usize };
  if len > K_MAX_STRING_LENGTH {
    return ptr::null();
  }

  let utf8: std::string::String = if data.is_null() || len == 0 {
    std::string::String::new()
  } else {
    let units = unsafe { std::slice::from_raw_parts(data, len) };
    std::string::String::from_utf16_lossy(units)
  };
  let v =
    unsafe { JS_NewStringLen(ctx, utf8.as_ptr() as *const c_char, utf8.len()) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  let h = intern::<V8String>(v);
  h
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__IsOneByte(_this: *const V8String) -> bool {
  v8__String__ContainsOnlyOneByte(_this)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewExternalOneByteConst(
  isolate: *mut RealIsolate,
  onebyte_const: *const OneByteConst,
) -> *const V8String {
  if onebyte_const.is_null() {
    return ptr::null();
  }
  let bytes = unsafe { (*onebyte_const).as_str() }.as_bytes();
  new_static_onebyte(isolate, bytes)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewExternalOneByteStatic(
  isolate: *mut RealIsolate,
  buffer: *const char,
  length: int,
) -> *const V8String {
  if buffer.is_null() || length < 0 {
    return ptr::null();
  }
  let bytes =
    unsafe { std::slice::from_raw_parts(buffer as *const u8, length as usize) };
  new_static_onebyte(isolate, bytes)
}

/// A string of the one-byte (Latin-1) characters of a static buffer
/// (`OneByteConst`, static externals). QuickJS has no external strings: the
/// characters are copied into its heap, and nothing needs the buffer again,
/// so such a string is an ordinary one, and `IsExternalOneByte` says so
/// (gg patch). deno_core makes about 900 of them in every isolate (op names,
/// property keys); each was recorded, with a boxed copy of its resource, in
/// a thread-wide map keyed by its handle's address until its isolate was
/// disposed: about 80 KB per idle isolate, and a lookup table that answered
/// for whatever handle reused the address.
fn new_static_onebyte(isolate: *mut RealIsolate, bytes: &[u8]) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let v = unsafe { onebyte_value(ctx, bytes) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  intern::<V8String>(v)
}

/// A QuickJS string of the one-byte (Latin-1) characters `bytes`. QuickJS
/// reads UTF-8, so a byte above 0x7F is widened to its two-byte form first;
/// ASCII, what nearly every caller has, is passed as it is (gg patch).
unsafe fn onebyte_value(ctx: *mut JSContext, bytes: &[u8]) -> JSValue {
  if bytes.is_ascii() {
    return unsafe {
      JS_NewStringLen(ctx, bytes.as_ptr() as *const c_char, bytes.len())
    };
  }
  let utf8: std::string::String =
    bytes.iter().map(|&b| b as ::std::primitive::char).collect();
  unsafe { JS_NewStringLen(ctx, utf8.as_ptr() as *const c_char, utf8.len()) }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewExternalOneByte(
  isolate: *mut RealIsolate,
  buffer: *mut char,
  length: usize,
  free: unsafe extern "C" fn(*mut char, usize),
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() || buffer.is_null() {
    if !buffer.is_null() {
      unsafe { free(buffer, length) };
    }
    return ptr::null();
  }

  let bytes =
    unsafe { std::slice::from_raw_parts(buffer as *const u8, length) };
  let owned = bytes.to_vec().into_boxed_slice();
  let v = unsafe { onebyte_value(ctx, &owned) };

  unsafe { free(buffer, length) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  account_external_string_memory(isolate, length);
  let handle = intern::<V8String>(v);
  remember_external_onebyte(isolate, handle, ExternalOneByteMeta::owned(owned));
  handle
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewExternalTwoByte(
  isolate: *mut RealIsolate,
  buffer: *mut u16,
  length: usize,
  free: unsafe extern "C" fn(*mut u16, usize),
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() || buffer.is_null() {
    if !buffer.is_null() {
      unsafe { free(buffer, length) };
    }
    return ptr::null();
  }
  let units = unsafe { std::slice::from_raw_parts(buffer, length) };
  let utf8 = std::string::String::from_utf16_lossy(units);
  let v =
    unsafe { JS_NewStringLen(ctx, utf8.as_ptr() as *const c_char, utf8.len()) };
  unsafe { free(buffer, length) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  account_external_string_memory(isolate, length.saturating_mul(2));
  let handle = intern::<V8String>(v);
  remember_external_twobyte(isolate, handle);
  handle
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__GetExternalStringResourceBase(
  this: *const V8String,
  encoding: *mut Encoding,
) -> *mut ExternalStringResourceBase {
  let mut out = ptr::null_mut();
  let mut enc = Encoding::Unknown;
  EXTERNAL_STRINGS.with(|m| {
    if let Some((_, meta)) = m.borrow().get(&(this as usize)) {
      match meta {
        ExternalMeta::OneByte(resource) => {
          enc = Encoding::OneByte;
          out = (&**resource as *const ExternalOneByteMeta)
            as *mut ExternalStringResourceBase;
        }
        ExternalMeta::TwoByte => enc = Encoding::TwoByte,
      }
    }
  });
  if !encoding.is_null() {
    unsafe { *encoding = enc };
  }
  out
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__Utf8Length(
  this: *const V8String,
  isolate: *mut RealIsolate,
) -> int {
  let ctx = ctx_for(isolate);
  if ctx.is_null() || this.is_null() {
    return 0;
  }
  let mut bytes = 0usize;
  string_units(this).for_each_scalar(|c, _| {
    bytes += c.len_utf8();
    true
  });
  bytes as int
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ContainsOnlyOneByte(
  this: *const V8String,
) -> bool {
  match string_units(this) {
    StringUnits::OneByte(_) => true,
    StringUnits::TwoByte(units) => units.iter().all(|&c| c <= 0xFF),
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__Write_v2(
  this: *const V8String,
  isolate: *mut RealIsolate,
  offset: u32,
  length: u32,
  buffer: *mut u16,
  flags: int,
) {
  if this.is_null() || buffer.is_null() {
    return;
  }
  let ctx = ctx_for(isolate);
  let units = handle_to_utf16(ctx, this);
  let total = units.len();
  let start = offset as usize;
  let mut n = 0usize;
  if start < total {
    n = (total - start).min(length as usize);
    unsafe { ptr::copy_nonoverlapping(units.as_ptr().add(start), buffer, n) };
  }
  if (flags & K_NULL_TERMINATE) != 0 && (n as u32) < length {
    unsafe { *buffer.add(n) = 0 };
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__WriteOneByte_v2(
  this: *const V8String,
  isolate: *mut RealIsolate,
  offset: u32,
  length: u32,
  buffer: *mut u8,
  flags: int,
) {
  if this.is_null() || buffer.is_null() {
    return;
  }
  let ctx = ctx_for(isolate);
  let units = handle_to_utf16(ctx, this);
  let total = units.len();
  let start = offset as usize;
  let mut n = 0usize;
  if start < total {
    n = (total - start).min(length as usize);
    for i in 0..n {
      unsafe { *buffer.add(i) = units[start + i] as u8 };
    }
  }
  if (flags & K_NULL_TERMINATE) != 0 && (n as u32) < length {
    unsafe { *buffer.add(n) = 0 };
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__WriteUtf8_v2(
  this: *const V8String,
  isolate: *mut RealIsolate,
  buffer: *mut char,
  capacity: size_t,
  flags: int,
  processed_characters_return: *mut size_t,
) -> int {
  let set_processed = |n: size_t| {
    if !processed_characters_return.is_null() {
      unsafe { *processed_characters_return = n };
    }
  };
  if this.is_null() || buffer.is_null() || ctx_for(isolate).is_null() {
    set_processed(0);
    return 0;
  }
  let out =
    unsafe { std::slice::from_raw_parts_mut(buffer as *mut u8, capacity) };
  // As V8 writes it: a lone surrogate becomes U+FFFD (USVString semantics,
  // which deno's encodeInto relies on), no character is split at the
  // buffer's end, and `processed` counts the UTF-16 units consumed.
  let mut written = 0usize;
  let mut processed = 0usize;
  string_units(this).for_each_scalar(|c, span| {
    let width = c.len_utf8();
    if written + width > capacity {
      return false;
    }
    c.encode_utf8(&mut out[written..written + width]);
    written += width;
    processed += span;
    true
  });
  if (flags & K_NULL_TERMINATE) != 0 && written < capacity {
    out[written] = 0;
  }
  set_processed(processed as size_t);
  written as int
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__PrimitiveArray__New(
  isolate: *mut RealIsolate,
  length: int,
) -> *const PrimitiveArray {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let arr = unsafe { JS_NewArray(ctx) };
  if arr.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }

  let n = if length < 0 { 0 } else { length as u32 };
  for i in 0..n {
    unsafe { js_put_index(ctx, arr, i, jsv_undefined()) };
  }
  intern::<PrimitiveArray>(arr)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__PrimitiveArray__Length(
  this: *const PrimitiveArray,
) -> int {
  let ctx = current_ctx();
  if ctx.is_null() || this.is_null() {
    return 0;
  }
  let obj = jsval_of(this);
  let len_val = unsafe { JS_GetPropertyStr(ctx, obj, c"length".as_ptr()) };
  if len_val.tag == JS_TAG_EXCEPTION {
    return 0;
  }
  let mut out: i32 = 0;
  unsafe { JS_ToInt32(ctx, &mut out, len_val) };
  unsafe { JS_FreeValue(ctx, len_val) };
  out as int
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__PrimitiveArray__Set(
  this: *const PrimitiveArray,
  isolate: *mut RealIsolate,
  index: int,
  item: *const Primitive,
) {
  if this.is_null() || index < 0 {
    return;
  }
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return;
  }
  let obj = jsval_of(this);

  let val = if item.is_null() {
    jsv_undefined()
  } else {
    unsafe { JS_DupValue(ctx, jsval_of(item)) }
  };
  unsafe { js_put_index(ctx, obj, index as u32, val) };
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__PrimitiveArray__Get(
  this: *const PrimitiveArray,
  isolate: *mut RealIsolate,
  index: int,
) -> *const Primitive {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  if this.is_null() || index < 0 {
    return intern::<Primitive>(jsv_undefined());
  }
  let obj = jsval_of(this);

  let v = unsafe { JS_GetPropertyUint32(ctx, obj, index as u32) };
  if v.tag == JS_TAG_EXCEPTION {
    return intern::<Primitive>(jsv_undefined());
  }
  intern::<Primitive>(v)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewFromUtf8(
  isolate: *mut RealIsolate,
  data: *const c_char,
  _new_type: c_int,
  length: c_int,
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let len = if length < 0 {
    if data.is_null() {
      0
    } else {
      unsafe { std::ffi::CStr::from_ptr(data) }.to_bytes().len()
    }
  } else {
    length as usize
  };
  if len > K_MAX_STRING_LENGTH {
    return ptr::null();
  }
  let bytes: &[u8] = if data.is_null() || len == 0 {
    &[]
  } else {
    unsafe { std::slice::from_raw_parts(data as *const u8, len) }
  };
  let utf8 = utf8_lossy(bytes);
  let v =
    unsafe { JS_NewStringLen(ctx, utf8.as_ptr() as *const c_char, utf8.len()) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  let h = intern::<V8String>(v);
  h
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewFromOneByte(
  isolate: *mut RealIsolate,
  data: *const u8,
  _new_type: c_int,
  length: c_int,
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() {
    return ptr::null();
  }
  let len = if length < 0 { 0 } else { length as usize };
  if len > K_MAX_STRING_LENGTH {
    return ptr::null();
  }

  let bytes: &[u8] = if data.is_null() || len == 0 {
    &[]
  } else {
    unsafe { std::slice::from_raw_parts(data, len) }
  };
  let v = unsafe { onebyte_value(ctx, bytes) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  intern::<V8String>(v)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__Length(this: *const V8String) -> c_int {
  if current_ctx().is_null() {
    return 0;
  }
  string_length(this) as c_int
}

#[repr(C)]
pub(super) struct ViewState {
  data: *mut c_void,
  len: usize,
  is_one_byte: bool,
  /// `data` points into the QuickJS string itself (a flat 8-bit string,
  /// kept alive by the handle the view was made from), not into a copy.
  borrowed: bool,
}

/// The characters of a flat 8-bit string, where QuickJS stores them.
unsafe extern "C" fn borrow_string_piece(
  opaque: *mut c_void,
  chars: *const c_void,
  _len: u32,
  _is_wide_char: c_int,
) {
  unsafe { *(opaque as *mut *const c_void) = chars };
}

/// The characters of `v` in place, when it is a flat 8-bit string of ASCII
/// characters only (gg patch): what QuickJS keeps is then valid UTF-8 as it
/// is. Valid while `v` is alive.
pub(crate) unsafe fn ascii_text_of<'a>(v: JSValue) -> Option<&'a str> {
  let (chars, len) = borrowed_view_of_value(v)?;
  let bytes = unsafe { std::slice::from_raw_parts(chars as *const u8, len) };
  // SAFETY: ASCII is UTF-8.
  bytes.is_ascii().then(|| unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// A view of `string` without a copy when QuickJS already stores it as V8
/// would show it: one flat run of 8-bit characters.
fn borrowed_view(string: *const V8String) -> Option<(*const c_void, usize)> {
  if string.is_null() {
    return None;
  }
  borrowed_view_of_value(jsval_of(string))
}

fn borrowed_view_of_value(v: JSValue) -> Option<(*const c_void, usize)> {
  if v.tag != JS_TAG_STRING {
    return None;
  }
  let mut len = 0u32;
  let mut wide: c_int = 0;
  if unsafe { JS_GetStringShape(v, &mut len, &mut wide) } < 0 || wide != 0 {
    return None;
  }
  if len == 0 {
    // A slice is never made from a null pointer, even an empty one.
    return Some((ptr::NonNull::<u8>::dangling().as_ptr() as *const c_void, 0));
  }
  let mut chars: *const c_void = ptr::null();
  unsafe {
    JS_VisitStringPieces(
      v,
      borrow_string_piece,
      &mut chars as *mut *const c_void as *mut c_void,
    )
  };
  (!chars.is_null()).then_some((chars, len as usize))
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ValueView__CONSTRUCT(
  buf: *mut ViewState,
  isolate: *mut RealIsolate,
  string: *const V8String,
) {
  if !ctx_for(isolate).is_null() {
    if let Some((chars, len)) = borrowed_view(string) {
      unsafe {
        (*buf).data = chars as *mut c_void;
        (*buf).len = len;
        (*buf).is_one_byte = true;
        (*buf).borrowed = true;
      }
      return;
    }
  }
  let units = if ctx_for(isolate).is_null() {
    StringUnits::OneByte(Vec::new())
  } else {
    string_units(string)
  };
  // A 16-bit string whose characters all fit one byte is viewed as one
  // byte per character, as V8 stores it.
  let units = match units {
    StringUnits::TwoByte(units) if units.iter().all(|&u| u <= 0xFF) => {
      StringUnits::OneByte(units.into_iter().map(|u| u as u8).collect())
    }
    other => other,
  };
  let (data, len, is_one_byte) = match units {
    StringUnits::OneByte(bytes) => {
      let bytes = bytes.into_boxed_slice();
      let len = bytes.len();
      (Box::into_raw(bytes) as *mut c_void, len, true)
    }
    StringUnits::TwoByte(units) => {
      let units = units.into_boxed_slice();
      let len = units.len();
      (Box::into_raw(units) as *mut c_void, len, false)
    }
  };
  unsafe {
    (*buf).data = data;
    (*buf).len = len;
    (*buf).is_one_byte = is_one_byte;
    (*buf).borrowed = false;
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ValueView__DESTRUCT(this: *mut ViewState) {
  unsafe {
    let st = &mut *this;
    if st.borrowed {
      st.data = ptr::null_mut();
      st.len = 0;
      st.borrowed = false;
    } else if !st.data.is_null() {
      if st.is_one_byte {
        let slice = ptr::slice_from_raw_parts_mut(st.data as *mut u8, st.len);
        drop(Box::from_raw(slice));
      } else {
        let slice = ptr::slice_from_raw_parts_mut(st.data as *mut u16, st.len);
        drop(Box::from_raw(slice));
      }
      st.data = ptr::null_mut();
      st.len = 0;
      st.is_one_byte = true;
    }
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ValueView__is_one_byte(
  this: *const ViewState,
) -> bool {
  unsafe { !this.is_null() && (*this).is_one_byte }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ValueView__data(
  this: *const ViewState,
) -> *const std::ffi::c_void {
  unsafe { (*this).data as *const std::ffi::c_void }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__ValueView__length(
  this: *const ViewState,
) -> c_int {
  unsafe { (*this).len as c_int }
}

// ---------------------------------------------------------------------------
// Link-stubs for v8 C-ABI symbols that `test_api.rs` references but this
// backend doesn't implement yet. Each returns a benign default
// (null / 0 / false / `Nothing`) so the target LINKS and the many tests that
// don't touch these paths run; tests that do exercise them fail gracefully
// without crashing. Promote individual stubs to real implementations over time.
// ---------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub extern "C" fn v8__ExternalOneByteStringResource__data(
  this: *const std::os::raw::c_void,
) -> *const std::os::raw::c_void {
  if this.is_null() {
    return ptr::null();
  }
  unsafe {
    (*(this as *const ExternalOneByteMeta)).data as *const c_void
  }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__ExternalOneByteStringResource__length(
  this: *const std::os::raw::c_void,
) -> usize {
  if this.is_null() {
    return 0;
  }
  unsafe { (*(this as *const ExternalOneByteMeta)).len }
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__Concat(
  isolate: *mut RealIsolate,
  left: *const V8String,
  right: *const V8String,
) -> *const V8String {
  let ctx = ctx_for(isolate);
  if ctx.is_null() || left.is_null() || right.is_null() {
    return ptr::null();
  }
  let mut units = handle_to_utf16(ctx, left);
  units.extend(handle_to_utf16(ctx, right));
  let s = std::string::String::from_utf16_lossy(&units);
  let v = unsafe { JS_NewStringLen(ctx, s.as_ptr() as *const c_char, s.len()) };
  if v.tag == JS_TAG_EXCEPTION {
    return ptr::null();
  }
  intern::<V8String>(v)
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__IsExternalOneByte(
  this: *const std::os::raw::c_void,
) -> bool {
  EXTERNAL_STRINGS.with(|m| {
    matches!(
      m.borrow().get(&(this as usize)),
      Some((_, ExternalMeta::OneByte(_)))
    )
  })
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__IsExternalTwoByte(
  this: *const std::os::raw::c_void,
) -> bool {
  EXTERNAL_STRINGS.with(|m| {
    matches!(
      m.borrow().get(&(this as usize)),
      Some((_, ExternalMeta::TwoByte))
    )
  })
}

#[unsafe(no_mangle)]
pub extern "C" fn v8__String__NewExternalTwoByteStatic(
  isolate: *mut RealIsolate,
  buffer: *const u16,
  length: crate::support::int,
) -> *const V8String {
  if buffer.is_null() || length < 0 {
    return ptr::null();
  }
  let handle = v8__String__NewFromTwoByte(isolate, buffer, 0, length);
  remember_external_twobyte(isolate, handle);
  handle
}

#[cfg(test)]
mod tests {
  use super::locale_compare;
  use std::cmp::Ordering;

  #[test]
  fn default_locale_compare_matches_v8() {
    assert_eq!(
      locale_compare("assert.ts", "assert_equals.ts", false),
      Ordering::Greater
    );
    assert_eq!(locale_compare("a-b", "ab", false), Ordering::Less);
    assert_eq!(locale_compare("A", "a", false), Ordering::Greater);
    assert_eq!(locale_compare("\u{e4}", "z", false), Ordering::Less);
    assert_eq!(locale_compare("2", "10", false), Ordering::Greater);
    assert_eq!(locale_compare("a2", "a10", true), Ordering::Less);
  }
}
