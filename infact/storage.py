"""Where answers go: the storage protocol and `open_storage()`, defined in infact/stores/store.py.

Every part of INFACT above the stores imports them from here (`from infact.storage import Storage`);
infact/stores/ itself imports infact/stores/store.py, so the stores and this module never import each
other both ways (tests/test_layers.py).
"""

from infact.stores.store import (  # noqa: F401  (re-exported: the names the rest of INFACT imports from here)
    REQUIRED_FIELDS,
    AtomicJSONStorage,
    MemoryStorage,
    Storage,
    StorageError,
    TinyDBStorage,
    append_all,
    check_record,
    open_storage,
)
