"""estate"""
