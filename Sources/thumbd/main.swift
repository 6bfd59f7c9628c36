print("thumbd")
