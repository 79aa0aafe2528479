"""planner/llm"""
