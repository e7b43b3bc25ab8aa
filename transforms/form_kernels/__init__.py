"""Pass `form-kernels`: the device level (or, in SPMD mode, the SPMD level) to the kernel level
(form_kernels.py, the pass and the host schedule; kernel_analysis.py, fusion and plans;
tensor_elements.py, tensor ops as scalar element graphs; scalar_graph.py and index_maps.py, the
element graphs and their index maps; kernel_codegen.py, loops over memrefs; device_scalars.py,
the device number's scalars in SPMD mode)."""
