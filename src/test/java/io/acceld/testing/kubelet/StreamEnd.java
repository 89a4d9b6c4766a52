package io.acceld.testing.kubelet;

import io.grpc.Status;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The end of one ListAndWatch stream, whichever registration it belonged to.
 *
 * @param registration the {@link Registration#sequence()} of the stream
 * @param endpoint the socket it was on
 * @param status OK with description "EOF" for a clean end, else the gRPC status the double saw
 * @param at when it ended
 */
public record StreamEnd(int registration, Path endpoint, Status status, Instant at) {}
