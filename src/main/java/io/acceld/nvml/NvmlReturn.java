package io.acceld.nvml;

/**
 * NVML return codes ({@code nvmlReturn_t}) and their names.
 *
 * <p>The names are built in rather than fetched with {@code nvmlErrorString} so that errors still
 * print when the library is absent or failed to initialise.
 */
public final class NvmlReturn {
  public static final int SUCCESS = 0;
  public static final int ERROR_UNINITIALIZED = 1;
  public static final int ERROR_INVALID_ARGUMENT = 2;
  public static final int ERROR_NOT_SUPPORTED = 3;
  public static final int ERROR_NO_PERMISSION = 4;
  public static final int ERROR_ALREADY_INITIALIZED = 5;
  public static final int ERROR_NOT_FOUND = 6;
  public static final int ERROR_INSUFFICIENT_SIZE = 7;
  public static final int ERROR_INSUFFICIENT_POWER = 8;
  public static final int ERROR_DRIVER_NOT_LOADED = 9;
  public static final int ERROR_TIMEOUT = 10;
  public static final int ERROR_IRQ_ISSUE = 11;
  public static final int ERROR_LIBRARY_NOT_FOUND = 12;
  public static final int ERROR_FUNCTION_NOT_FOUND = 13;
  public static final int ERROR_CORRUPTED_INFOROM = 14;
  public static final int ERROR_GPU_IS_LOST = 15;
  public static final int ERROR_RESET_REQUIRED = 16;
  public static final int ERROR_OPERATING_SYSTEM = 17;
  public static final int ERROR_LIB_RM_VERSION_MISMATCH = 18;
  public static final int ERROR_IN_USE = 19;
  public static final int ERROR_MEMORY = 20;
  public static final int ERROR_NO_DATA = 21;
  public static final int ERROR_VGPU_ECC_NOT_SUPPORTED = 22;
  public static final int ERROR_INSUFFICIENT_RESOURCES = 23;
  public static final int ERROR_FREQ_NOT_SUPPORTED = 24;
  public static final int ERROR_ARGUMENT_VERSION_MISMATCH = 25;
  public static final int ERROR_DEPRECATED = 26;
  public static final int ERROR_NOT_READY = 27;
  public static final int ERROR_GPU_NOT_FOUND = 28;
  public static final int ERROR_INVALID_STATE = 29;
  public static final int ERROR_RESET_TYPE_NOT_SUPPORTED = 30;
  public static final int ERROR_UNKNOWN = 999;

  /** Index = code, for codes 0..30; 999 is handled separately. */
  private static final String[] NAMES = {
    "SUCCESS",
    "ERROR_UNINITIALIZED",
    "ERROR_INVALID_ARGUMENT",
    "ERROR_NOT_SUPPORTED",
    "ERROR_NO_PERMISSION",
    "ERROR_ALREADY_INITIALIZED",
    "ERROR_NOT_FOUND",
    "ERROR_INSUFFICIENT_SIZE",
    "ERROR_INSUFFICIENT_POWER",
    "ERROR_DRIVER_NOT_LOADED",
    "ERROR_TIMEOUT",
    "ERROR_IRQ_ISSUE",
    "ERROR_LIBRARY_NOT_FOUND",
    "ERROR_FUNCTION_NOT_FOUND",
    "ERROR_CORRUPTED_INFOROM",
    "ERROR_GPU_IS_LOST",
    "ERROR_RESET_REQUIRED",
    "ERROR_OPERATING_SYSTEM",
    "ERROR_LIB_RM_VERSION_MISMATCH",
    "ERROR_IN_USE",
    "ERROR_MEMORY",
    "ERROR_NO_DATA",
    "ERROR_VGPU_ECC_NOT_SUPPORTED",
    "ERROR_INSUFFICIENT_RESOURCES",
    "ERROR_FREQ_NOT_SUPPORTED",
    "ERROR_ARGUMENT_VERSION_MISMATCH",
    "ERROR_DEPRECATED",
    "ERROR_NOT_READY",
    "ERROR_GPU_NOT_FOUND",
    "ERROR_INVALID_STATE",
    "ERROR_RESET_TYPE_NOT_SUPPORTED",
  };

  private NvmlReturn() {}

  /**
   * The C name of a return code, e.g. {@code NVML_ERROR_GPU_IS_LOST}; codes newer than this table
   * come out as {@code NVML_RETURN_<code>}.
   */
  public static String name(int code) {
    if (code >= 0 && code < NAMES.length) {
      return "NVML_" + NAMES[code];
    }
    if (code == ERROR_UNKNOWN) {
      return "NVML_ERROR_UNKNOWN";
    }
    return "NVML_RETURN_" + code;
  }

  /** {@code NVML_ERROR_GPU_IS_LOST (15)}: the form used in log lines and exception messages. */
  public static String describe(int code) {
    return name(code) + " (" + code + ")";
  }
}
