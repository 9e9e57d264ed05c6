//! numpy arrays made from bytes, for the tensors and masks of `Game` and `Observation`.

use pyo3::prelude::*;

/// A writable numpy array of `dtype` and `shape` over a copy of `bytes` (numpy is imported
/// only here: the rest of the package does without it).
pub fn numpy_array<'py>(
    py: Python<'py>,
    bytes: &[u8],
    dtype: &str,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err(
            "tensors and masks are numpy arrays: pip install numpy",
        )
    })?;
    let buffer = pyo3::types::PyByteArray::new(py, bytes);
    numpy
        .call_method1("frombuffer", (buffer, dtype))?
        .call_method1("reshape", (shape,))
}
