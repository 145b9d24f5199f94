#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// read(2), write(2) and close(2) under names of their own. Inside a type with
// its own `read`, `write` or `close` the C function is hidden, and the module
// name that would reach it (`Glibc.read`) differs by platform (Glibc, Musl,
// Darwin); at file scope the plain names are the C library's.

func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

@discardableResult
func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
