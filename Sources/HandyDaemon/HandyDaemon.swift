// HandyDaemon: see Package.swift
