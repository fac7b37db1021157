print("handyctl: not yet")
