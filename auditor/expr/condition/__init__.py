"""expr/condition"""
