"""The view of a CUDA Field's memory that strata hands out: DLPack (from the C++ side)
plus __cuda_array_interface__ (version 3), so cupy.asarray, torch.from_dlpack and numba
all share the memory without a copy. It holds the Field alive."""


class CudaView:
    """A strided (nz, ny, nx) window on a strata Field in CUDA memory."""

    __slots__ = ("_nd", "_owner", "shape", "strides", "typestr", "ptr")

    def __init__(self, nd, ptr, shape, strides, typestr, owner):
        self._nd, self._owner = nd, owner
        self.ptr, self.shape, self.strides, self.typestr = ptr, shape, strides, typestr

    @property
    def __cuda_array_interface__(self):
        # stream None: strata enqueues on the legacy default stream and its calls return
        # with that work queued there, which every blocking stream waits for.
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.ptr, False),
                "strides": self.strides, "version": 3, "stream": None}

    def __dlpack__(self, **kwargs):
        return self._nd.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._nd.__dlpack_device__()

    def __repr__(self):
        return f"strata CUDA view(shape={self.shape}, typestr={self.typestr!r}, ptr={self.ptr:#x})"
