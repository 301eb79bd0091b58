print("movrec-bench: not written yet")
