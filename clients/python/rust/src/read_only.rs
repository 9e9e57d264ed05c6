//! Memory that Rust writes and Python can only read: what `VecGame`'s arrays are made over.
//!
//! numpy lets anyone set `flags.writeable = True` on an array that owns its memory or is a
//! view of a writeable array, which is what `numpy.zeros(...)` and its views are: an array
//! `VecGame` keeps up to date by writing only what changed would then take a value written
//! from Python and keep it wrong. A [`ReadOnlyMemory`] owns the memory and exports it to
//! Python only read-only (the buffer protocol: a writable request is refused), and the arrays
//! handed out are `numpy.frombuffer` views of it: numpy then refuses to make them writeable
//! (`ValueError: cannot set WRITEABLE flag to True of this array`), as it does for an array
//! over `bytes`, and nothing reachable from Python (`arr.base`, its `obj`) writes either.
//!
//! The memory is allocated fallibly and zeroed by the system (`calloc`: pages untouched until
//! written), so that a batch too large for the machine raises MemoryError instead of aborting
//! the interpreter.

use pyo3::exceptions::{PyBufferError, PyMemoryError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::alloc::Layout;
use std::ffi::c_int;
use std::ptr::NonNull;

/// The alignment of the memory: a cache line, and more than any numpy dtype needs.
const ALIGN: usize = 64;

/// Bytes that Rust writes and Python reads (see the module).
#[pyclass(module = "anqi", name = "ReadOnlyMemory", frozen)]
pub struct ReadOnlyMemory {
    ptr: NonNull<u8>,
    /// The bytes in use (the allocation has at least one, even for none).
    len: usize,
    layout: Layout,
}

// SAFETY: the memory is owned by the `ReadOnlyMemory` alone (nothing else frees it) and is
// plain bytes: any thread may read it or free it. Writes go through `VecGame`, which holds
// the only Rust access to it (see `vec_game::Written::values`); Python only reads.
unsafe impl Send for ReadOnlyMemory {}
// SAFETY: as for `Send`: `&ReadOnlyMemory` gives only the pointer and the length.
unsafe impl Sync for ReadOnlyMemory {}

impl ReadOnlyMemory {
    /// `len` bytes of zeros, or MemoryError naming `what` (`"the observations"`) when they
    /// cannot be allocated.
    pub fn zeroed(len: usize, what: &str) -> PyResult<ReadOnlyMemory> {
        let refuse = || {
            PyMemoryError::new_err(format!(
                "cannot allocate {len} bytes for {what}: ask for fewer games"
            ))
        };
        let layout = Layout::from_size_align(len.max(1), ALIGN).map_err(|_| refuse())?;
        // SAFETY: the layout's size is at least 1. A null pointer (refused) is checked below.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or_else(refuse)?;
        Ok(ReadOnlyMemory { ptr, len, layout })
    }

    /// The start of the memory.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.len
    }
}

impl Drop for ReadOnlyMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout, freed once. Nothing reads it any
        // more: every buffer exported holds a reference to this object, which is why it drops.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[pymethods]
impl ReadOnlyMemory {
    /// The buffer protocol: the bytes, read-only, as one dimension of unsigned bytes (`B`).
    /// A request for a writable buffer raises BufferError.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("no view to fill"));
        }
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err(
                "VecGame's arrays are read-only: copy one (arr.copy()) to change it",
            ));
        }
        let this = slf.get();
        let (buf, len) = (this.as_ptr(), this.len);
        // SAFETY: `view` is the non-null struct Python passes to fill. Every pointer stored
        // in it stays valid while the view lasts: the memory and the view's own fields (its
        // shape is its `len`, its stride its `itemsize`, as CPython's own `bytes` does), with
        // the view holding a reference to this object (`obj`), which owns the memory. The
        // format is a static string, which Python never writes or frees.
        unsafe {
            (*view).obj = slf.into_any().into_ptr();
            (*view).buf = buf.cast();
            (*view).len = len as isize;
            (*view).readonly = 1;
            (*view).itemsize = 1;
            (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
                c"B".as_ptr().cast_mut()
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 1;
            (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
                &mut (*view).len
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES {
                &mut (*view).itemsize
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
        }
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.len
    }

    fn __repr__(&self) -> String {
        format!("<anqi.ReadOnlyMemory {} bytes>", self.len)
    }
}
