"""participation"""
