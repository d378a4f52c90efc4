path = "C:\data"
