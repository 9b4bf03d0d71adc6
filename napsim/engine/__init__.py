"""numba kernels only: they read packed integer/float tables and write metric arrays."""
