"""Training the card reader's two networks (an optional extra: ``pip install -e '.[train]'``).

Nothing here is imported by the table: the table loads the exported ONNX files
(:mod:`vision.indices`). The data generator (:mod:`.faces`, :mod:`.backgrounds`, :mod:`.synth`;
the real photographs are :mod:`vision.photo_set`), the detector's targets (:mod:`.targets`),
network (:mod:`.model`) and loop (:mod:`.train`), and the index reader (:mod:`.reader`).
"""
