package io.acceld.nvml;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a missing NVML symbol an ordinary NVML error. JNA looks symbols up on first call and throws
 * {@link UnsatisfiedLinkError}, an {@link Error} that would escape every handler and kill the
 * thread; an old driver, or another vendor's NVML build, must instead only lose the feature. The
 * wrapped library answers {@link NvmlReturn#ERROR_FUNCTION_NOT_FOUND}, which NVML itself uses for
 * the same condition, and logs each missing function once.
 *
 * <p>The wrapper hands each call to JNA's own handler of {@code lib}, as JNA's proxy would, rather
 * than through {@code Method.invoke}: that made every NVML call a reflective one, and the JDK spun
 * an accessor class for each function after its 15th call, dozens in all, the first of them on the
 * main thread during the first scan.
 */
final class MissingSymbols {
  private static final Logger log = LoggerFactory.getLogger(MissingSymbols.class);

  private MissingSymbols() {}

  /**
   * @param lib the library as {@code Native.load} made it: a proxy with JNA's handler
   */
  static NvmlLibrary tolerant(NvmlLibrary lib) {
    InvocationHandler jna = Proxy.getInvocationHandler(lib);
    Set<String> reported = ConcurrentHashMap.newKeySet();
    return (NvmlLibrary)
        Proxy.newProxyInstance(
            NvmlLibrary.class.getClassLoader(),
            new Class<?>[] {NvmlLibrary.class},
            (proxy, method, args) -> {
              try {
                return jna.invoke(lib, method, args);
              } catch (UnsatisfiedLinkError missing) {
                if (reported.add(method.getName())) {
                  log.warn(
                      "NVML has no {} (old driver?); that feature is off: {}",
                      method.getName(),
                      missing.getMessage());
                }
                return method.getReturnType() == int.class
                    ? NvmlReturn.ERROR_FUNCTION_NOT_FOUND
                    : null;
              }
            });
  }
}
