// HandyClient: see Package.swift
