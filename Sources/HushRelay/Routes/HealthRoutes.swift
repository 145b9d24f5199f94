import Hummingbird
import HushRelayAPI

/// `GET /v1/health`: liveness, and the baseline of the load benchmark.
enum HealthRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.get("/v1/health") { _, _ in
            try JSONBody.response(HealthResponse(status: "ok"))
        }
    }
}
