"""printed"""
