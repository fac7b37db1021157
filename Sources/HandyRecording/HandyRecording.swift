// HandyRecording: see Package.swift
