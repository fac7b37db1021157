print("handyd: not yet")
