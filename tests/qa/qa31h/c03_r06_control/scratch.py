print("scratch")
