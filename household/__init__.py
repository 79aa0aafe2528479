"""household"""
