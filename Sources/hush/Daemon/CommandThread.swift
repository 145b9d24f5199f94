import Foundation

/// A thread of its own for one command the daemon runs for a client
/// (`DaemonCommandRunner`, with `withTaskExecutorPreference`).
///
/// A command writes its output synchronously (`print`), and a write waits
/// while the client has not read what is already waiting
/// (`CoalescedOutput`). On Swift's shared pool (one thread per core: two
/// on a two-core machine) two such commands would hold every thread, and
/// the tasks that send their output, which need one, would never run. Here
/// a waiting command holds only its own thread.
final class CommandThread: TaskExecutor, @unchecked Sendable {
    /// Guards the three below.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var ended = false

    init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "hush daemon command"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        let late = ended
        if !late {
            jobs.append(job)
            condition.signal()
        }
        condition.unlock()
        // A job that comes after the command ended (an unstructured task it
        // left behind) runs all the same, on a thread of its own.
        if late { Thread.detachNewThread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) } }
    }

    /// Lets the thread end once the jobs queued so far have run.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                ended = true
                condition.unlock()
                return
            }
            let batch = jobs
            jobs = []
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
