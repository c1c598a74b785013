"""chains"""
