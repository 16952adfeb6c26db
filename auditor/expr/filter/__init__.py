"""expr/filter"""
