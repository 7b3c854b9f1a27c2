"""The study builder's page (pages/builder.py): the generated form's widgets (`form`), and the page that lays out
the form, the problems, the live preview and Save / Download (`page`). The logic is infact/builder/.

Part of the interfaces layer: may import anything in `infact`.
"""
