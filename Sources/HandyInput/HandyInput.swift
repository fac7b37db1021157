// HandyInput: see Package.swift
